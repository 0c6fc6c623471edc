// SPDX-License-Identifier: GPL-2.0-only
/* The guest's side of the host's evidence (lib/host_evidence.h): marks, a request, its answer
 * parsed strictly. */
#include "host_evidence.h"
#include "console_input.h"
#include "arch.h"
#include "wait.h"

#define HOST_EVIDENCE_LINE_MAX 16384
#define HE_DONE		       "HOST-EVIDENCE-DONE "
#define HE_ERROR	       "HOST-EVIDENCE-ERROR"

bool host_evidence_offered(void)
{
	return arch_host_evidence_offered();
}

u64 host_evidence_mark(unsigned k)
{
	printf("HOST-EVIDENCE: mark %u\n", k);
	return arch_counter();
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

/* The agent's next answer line (other input skipped); false when give_up came first. */
static bool read_answer(u64 give_up)
{
	in.len = 0;
	return work_until(take_answer_char, NULL, give_up);
}

static const char *answer_bad(const char *bad)
{
	if (!bad)
		return NULL;
	snprintf(why, sizeof(why), "%s: '%.200s'", bad, line);
	return why;
}

/* Ask for one line's worth of windows. */
static const char *windows_line(unsigned a, unsigned b, u64 span_us, const struct host_window *w,
				u32 n, struct host_part *out, u64 *stamp_us, u64 give_up)
{
	printf("HOST-EVIDENCE: windows %u %u %llu", a, b, span_us);
	for (u32 i = 0; i < n; i++)
		printf(" %llu:%llu", w[i].from_us, w[i].to_us);
	printf("\n");
	if (!read_answer(give_up))
		return "the host's agent did not answer in time";
	return answer_bad(host_evidence_parse_windows(line, n, out, stamp_us));
}

const char *host_evidence_windows(unsigned a, unsigned b, u64 span_us, const struct host_window *w,
				  u32 n, struct host_part *out, u64 *stamp_us, u64 give_up)
{
	const char *bad;
	u64 stamp;

	*stamp_us = 0;
	for (u32 i = 0; i < n; i += HOST_EVIDENCE_WINDOWS_PER_LINE) {
		u32 k = min(n - i, (u32)HOST_EVIDENCE_WINDOWS_PER_LINE);

		bad = windows_line(a, b, span_us, &w[i], k, &out[i], &stamp, give_up);
		if (bad)
			return bad;
		*stamp_us = max(*stamp_us, stamp);
	}
	return NULL;
}

const char *host_evidence_request(unsigned a, unsigned b, u32 nparts, struct host_evidence *out,
				  u64 give_up)
{
	if (!nparts || nparts > HOST_EVIDENCE_PARTS_MAX || a > HOST_EVIDENCE_MARK_MAX ||
	    b > HOST_EVIDENCE_MARK_MAX)
		return "a request out of the protocol's range";
	printf("HOST-EVIDENCE: request %u %u %u\n", a, b, nparts);
	if (!read_answer(give_up))
		return "the host's agent did not answer in time";
	return answer_bad(host_evidence_parse(line, nparts, out));
}
