// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for lib/printf.c's format engine, two ways by the first byte:
 *
 * raw: the rest of the input is the format, as is, with every argument a
 *   pointer to a valid string, so whatever the engine takes for %s is safe
 *   (it has no %n). At most MAX_SPECS '%'s, each taking at most three
 *   arguments, so the arguments never run out.
 * built: a format made from the input, one conversion at a time, every
 *   argument of the type the conversion wants, compared with glibc's output.
 *   Numbers stay small enough for glibc (which is slow at huge widths) and
 *   %p is never NULL (glibc prints "(nil)", we print 0x0).
 *
 * Both write into a heap buffer of exactly the size given, so ASan sees any
 * write past it, and check the terminator and the returned length.
 */
/* LIBSRC: lib/printf.c lib/string.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_shim.h"

#define MAX_SPECS 16
#define FORMAT_MAX 256
#define OUT_MAX 1024
#define MODE_RAW 0

struct input {
	const uint8_t *data;
	size_t size;
};

static uint8_t take(struct input *in)
{
	if (!in->size)
		return 0;
	in->size--;
	return *in->data++;
}

static uint64_t take64(struct input *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | take(in);
	return v;
}

/* Checks what C promises about the output, whatever the format. */
static void check_output(const char *buf, size_t size, int ret)
{
	if (ret < 0 || !size)
		return;
	if ((size_t)ret < size && buf[ret] != '\0')
		abort();
	if ((size_t)ret >= size && buf[size - 1] != '\0')
		abort();
}

#define S strings[0]
#define ARGS8 S, S, S, S, S, S, S, S

static void fuzz_raw(struct input *in)
{
	static const char *const strings[] = { "fuzz" };
	size_t size = take(in);
	char fmt[FORMAT_MAX + 1];
	size_t n = 0, specs = 0;
	char *buf;
	int ret;

	for (; n < FORMAT_MAX && in->size; n++) {
		fmt[n] = (char)take(in);
		if (fmt[n] == '%' && ++specs > MAX_SPECS)
			break;
	}
	fmt[n] = '\0';
	buf = malloc(size ? size : 1);
	ret = vt_snprintf(size ? buf : NULL, size, fmt, ARGS8, ARGS8, ARGS8, ARGS8, ARGS8, ARGS8);
	check_output(buf, size, ret);
	free(buf);
}

static const char *const fuzz_strings[] = { "", "x", "hello", "(null)", "tab\there", NULL };
static const char conversions[] = "diouxXcsp%";
static const char *const lengths[] = { "", "hh", "h", "l", "ll", "j", "z", "t" };

/* One conversion: "%" flags width precision length conversion, and its arguments. */
struct conversion {
	char fmt[32];
	int stars[2];
	int nstars;
	char conv;
	const char *length;
	uint64_t value;
	const char *string;
};

/* A width or precision from one byte: none, a number below 100, or '*' with a small int. */
static void take_field(struct input *in, struct conversion *c, size_t *n, const char *dot)
{
	uint8_t b = take(in);

	if (b < 64)
		return;
	*n += snprintf(c->fmt + *n, sizeof(c->fmt) - *n, "%s", dot);
	if (b < 224) {
		*n += snprintf(c->fmt + *n, sizeof(c->fmt) - *n, "%d", b % 100);
		return;
	}
	c->fmt[(*n)++] = '*';
	c->stars[c->nstars++] = (int8_t)take(in) * 2;
}

static void build(struct input *in, struct conversion *c)
{
	static const char flag_chars[] = "-+ #0";
	uint8_t flags = take(in);
	size_t n = 0;

	*c = (struct conversion){ .conv = conversions[take(in) % (sizeof(conversions) - 1)] };
	c->fmt[n++] = '%';
	if (c->conv != '%') {
		for (int i = 0; i < 5; i++) {
			if (flags & (1 << i))
				c->fmt[n++] = flag_chars[i];
		}
		take_field(in, c, &n, "");
		take_field(in, c, &n, ".");
		if (strchr("diouxX", c->conv))
			c->length = lengths[take(in) % (sizeof(lengths) / sizeof(lengths[0]))];
	}
	n += snprintf(c->fmt + n, sizeof(c->fmt) - n, "%s%c", c->length ? c->length : "", c->conv);
	c->value = take64(in);
	c->string = fuzz_strings[c->value % (sizeof(fuzz_strings) / sizeof(fuzz_strings[0]))];
	if (c->conv == 'p' && !c->value)
		c->value = 1;
}

typedef int (*snprintf_fn)(char *buf, size_t size, const char *fmt, ...);

/* The stars, then the value as the type the conversion and length call for. */
#define CALL(fn, buf, size, c, v)                                                      \
	((c)->nstars == 0 ? fn(buf, size, (c)->fmt, v) :                               \
	 (c)->nstars == 1 ? fn(buf, size, (c)->fmt, (c)->stars[0], v) :                \
			    fn(buf, size, (c)->fmt, (c)->stars[0], (c)->stars[1], v))

static int call(snprintf_fn fn, char *buf, size_t size, const struct conversion *c)
{
	const char *len = c->length ? c->length : "";

	if (c->conv == '%')
		return fn(buf, size, c->fmt);
	if (c->conv == 's')
		return CALL(fn, buf, size, c, c->string);
	if (c->conv == 'p')
		return CALL(fn, buf, size, c, (void *)(uintptr_t)c->value);
	if (!strcmp(len, "l") || !strcmp(len, "ll") || !strcmp(len, "j") ||
	    !strcmp(len, "z") || !strcmp(len, "t"))
		return CALL(fn, buf, size, c, (unsigned long long)c->value);
	return CALL(fn, buf, size, c, (unsigned int)c->value);
}

static void fuzz_built(struct input *in)
{
	char want[OUT_MAX], *got;
	struct conversion c;
	size_t size = take(in);
	int w, g;

	while (in->size) {
		build(in, &c);
		w = call(snprintf, want, sizeof(want), &c);
		got = malloc(OUT_MAX);
		g = call(vt_snprintf, got, OUT_MAX, &c);
		if (w != g || memcmp(want, got, (size_t)w + 1)) {
			fprintf(stderr, "\"%s\": glibc %d \"%s\", vmtick %d \"%s\"\n", c.fmt, w,
				want, g, got);
			abort();
		}
		free(got);
		/* Truncated into an exact-size buffer: the same leading bytes. */
		got = malloc(size ? size : 1);
		g = call(vt_snprintf, size ? got : NULL, size, &c);
		check_output(got, size, g);
		if (g != w || (size && memcmp(want, got, size - 1 < (size_t)w ? size - 1 : (size_t)w)))
			abort();
		free(got);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };

	if (take(&in) % 2 == MODE_RAW)
		fuzz_raw(&in);
	else
		fuzz_built(&in);
	return 0;
}
