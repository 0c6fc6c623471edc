// SPDX-License-Identifier: GPL-2.0-only
/* The guest's side of the host's evidence (lib/host_evidence.h): marks around a span, its parts
 * and windows asked for, each answer waited for and parsed strictly: the one client. */
#include "host_evidence.h"
#include "console_input.h"
#include "arch.h"
#include "report.h"
#include "stats.h"
#include "units.h"
#include "wait.h"

#define HOST_EVIDENCE_LINE_MAX 16384
#define HE_DONE		       "HOST-EVIDENCE-DONE "
#define HE_ERROR	       "HOST-EVIDENCE-ERROR"

bool host_evidence_offered(void)
{
	return arch_host_evidence_offered();
}

const char *host_evidence_absent(void)
{
	if (host_evidence_offered())
		return NULL;
	return "no host-evidence agent (scripts/host_evidence.py) answers here: run by hand, or on "
	       "an arch that cannot be told of one (arm64)";
}

/* the first mark of the next span */
static unsigned next_mark;

void host_span_begin(struct host_span *s, u64 (*read)(void), u64 hz)
{
	*s = (struct host_span){.a = next_mark, .read = read, .hz = hz};
	next_mark += 2;
	printf("HOST-EVIDENCE: mark %u\n", s->a);
	s->at_a = read();
}

void host_span_end(struct host_span *s)
{
	printf("HOST-EVIDENCE: mark %u\n", s->a + 1);
	s->at_b = s->read();
}

u64 host_span_us(const struct host_span *s, u64 t)
{
	return t > s->at_a ? ticks_to_ns(t - s->at_a, s->hz) / NSEC_PER_USEC : 0;
}

/* "KEY=" at *s: step past it. */
static bool take_key(const char **s, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(*s, key, n) || (*s)[n] != '=')
		return false;
	*s += n + 1;
	return true;
}

static bool take_num(const char **s, u64 *v)
{
	char *end;

	if (!isdigit(**s))
		return false;
	*v = strtoull(*s, &end, 10);
	*s = end;
	return true;
}

/* "KEY=N " */
static bool take_field(const char **s, const char *key, u64 *v)
{
	if (!take_key(s, key) || !take_num(s, v))
		return false;
	if (**s == ' ')
		(*s)++;
	return true;
}

/* "KEY=a,b,...,z" with n numbers, each into the part's field at off. */
static bool take_list(const char **s, const char *key, u32 n, struct host_part *parts, size_t off)
{
	u64 v;

	if (!take_key(s, key))
		return false;
	for (u32 i = 0; i < n; i++) {
		if ((i && *(*s)++ != ',') || !take_num(s, &v) || v > UINT32_MAX)
			return false;
		*(u32 *)((char *)&parts[i] + off) = (u32)v;
	}
	if (**s == ' ')
		(*s)++;
	return true;
}

/* An answer's start: past "HOST-EVIDENCE-DONE ", or what it is instead. */
static const char *take_done(const char **s)
{
	if (!strncmp(*s, HE_ERROR, strlen(HE_ERROR)))
		return "the host's agent answered with an error";
	if (strncmp(*s, HE_DONE, strlen(HE_DONE)))
		return "the answer is not HOST-EVIDENCE-DONE";
	*s += strlen(HE_DONE);
	return NULL;
}

/* An answer's end: the three lists of n figures each, and nothing after them. */
static const char *take_lists(const char **s, u32 n, struct host_part *parts)
{
	if (!take_list(s, "vcpu", n, parts, offsetof(struct host_part, vcpu_us)) ||
	    !take_list(s, "other", n, parts, offsetof(struct host_part, other_us)) ||
	    !take_list(s, "steal", n, parts, offsetof(struct host_part, steal_us)))
		return "the answer's vcpu=, other= or steal= list is malformed";
	if (**s)
		return "the answer has more after its steal= list";
	return NULL;
}

const char *host_evidence_parse(const char *line, u32 nparts, struct host_evidence *out)
{
	const char *s = line, *bad = take_done(&s);
	u64 parts;

	if (bad)
		return bad;
	if (!take_field(&s, "parts", &parts) || parts != nparts)
		return "the answer's parts= is not the number asked for";
	if (!take_field(&s, "span_us", &out->span_us) ||
	    !take_field(&s, "stamp_us", &out->stamp_us))
		return "the answer lacks span_us= or stamp_us=";
	bad = take_lists(&s, nparts, out->part);
	if (!bad)
		out->nparts = nparts;
	return bad;
}

const char *host_evidence_parse_windows(const char *line, u32 n, struct host_part *out,
					u64 *stamp_us)
{
	const char *s = line, *bad = take_done(&s);
	u64 k;

	if (bad)
		return bad;
	if (!take_field(&s, "windows", &k) || k != n)
		return "the answer's windows= is not the number asked for";
	if (!take_field(&s, "stamp_us", stamp_us))
		return "the answer lacks stamp_us=";
	return take_lists(&s, n, out);
}

static char line[HOST_EVIDENCE_LINE_MAX];
static char why[HOST_EVIDENCE_LINE_MAX / 64 + 64];
static struct console_line in = {line, sizeof(line)};

/*
 * One character of input taken into line, if one is in: true once a
 * whole answer line is; another line ends and is forgotten.
 */
static bool take_answer_char(void *unused, u64 now)
{
	return console_line_take(&in) && !strncmp(line, "HOST-EVIDENCE", strlen("HOST-EVIDENCE"));
}

/*
 * The agent's next answer line into line (other input skipped): NULL, or
 * why none came within HOST_EVIDENCE_ANSWER_MS of the request.
 */
static const char *read_answer(void)
{
	u64 give_up = arch_counter() + arch_counter_hz() * HOST_EVIDENCE_ANSWER_MS / MSEC_PER_SEC;

	in.len = 0;
	if (!work_until(take_answer_char, NULL, give_up))
		return "the host's agent did not answer in time";
	return NULL;
}

/* What was wrong with the answer line, quoted: NULL when nothing. */
static const char *answer_bad(const char *bad)
{
	if (!bad)
		return NULL;
	snprintf(why, sizeof(why), "%s: '%.200s'", bad, line);
	return why;
}

/* An agent that was offered and failed: a FAIL, whichever engine asked. */
static const char *lost(const char *bad)
{
	if (bad)
		report(false, "the host's evidence was offered and could not be had: %s", bad);
	return bad;
}

/* One line's worth of windows: k of them from q's window i, and the answer's figures. */
struct windows_line {
	u32 i, k;
	struct host_part part[HOST_EVIDENCE_WINDOWS_PER_LINE];
	u64 stamp_us;
};

static const char *ask_windows_line(const struct host_span *s, const struct host_ask *q,
				    struct windows_line *l)
{
	const char *bad;
	u64 from, to;

	printf("HOST-EVIDENCE: windows %u %u %llu", s->a, s->a + 1, host_span_us(s, s->at_b));
	for (u32 j = 0; j < l->k; j++) {
		q->window(q->arg, l->i + j, &from, &to);
		printf(" %llu:%llu", host_span_us(s, from), host_span_us(s, to));
	}
	printf("\n");
	bad = read_answer();
	return bad ? bad
		   : answer_bad(host_evidence_parse_windows(line, l->k, l->part, &l->stamp_us));
}

/* The agent's marks run 0..HOST_EVIDENCE_MARK_MAX: a span past them cannot be asked about. */
static const char *span_bad(const struct host_span *s)
{
	const char *absent = host_evidence_absent();

	if (absent)
		return absent;
	if (s->a + 1 > HOST_EVIDENCE_MARK_MAX)
		return lost("a span past the agent's last mark");
	return NULL;
}

const char *host_span_windows(const struct host_span *s, const struct host_ask *q, u64 *stamp_us)
{
	struct windows_line l;
	const char *bad = span_bad(s);

	*stamp_us = 0;
	if (bad)
		return bad;
	for (l.i = 0; l.i < q->n; l.i += l.k) {
		l.k = min(q->n - l.i, (u32)HOST_EVIDENCE_WINDOWS_PER_LINE);
		bad = ask_windows_line(s, q, &l);
		if (bad)
			return lost(bad);
		for (u32 j = 0; j < l.k; j++)
			q->answer(q->arg, l.i + j, &l.part[j]);
		*stamp_us = max(*stamp_us, l.stamp_us);
	}
	return NULL;
}

const char *host_span_parts(const struct host_span *s, u64 part_ms, struct host_evidence *out)
{
	u64 span_ms = ticks_to_ns(s->at_b - s->at_a, s->hz) / NSEC_PER_MSEC;
	u32 nparts =
		(u32)min(max(span_ms / max(part_ms, 1ull), 1ull), (u64)HOST_EVIDENCE_PARTS_MAX);
	const char *bad = span_bad(s);

	if (bad)
		return bad;
	printf("HOST-EVIDENCE: request %u %u %u\n", s->a, s->a + 1, nparts);
	bad = read_answer();
	return lost(bad ? bad : answer_bad(host_evidence_parse(line, nparts, out)));
}
