/* SPDX-License-Identifier: GPL-2.0-only */
/* A whole file read into memory, for the host tools and tests that read recorded logs. */
#ifndef VMTICK_SLURP_H
#define VMTICK_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/* The file's text, NUL-terminated, malloc'd (free it); NULL when it cannot be read. */
static inline char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
out:
	fclose(f);
	return buf;
}

#endif
