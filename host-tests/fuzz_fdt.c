// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for lib/fdt.c and lib/fdt-query.c: corrupt device trees must give errors,
 * never a read outside the blob (ASan) or a hang (-timeout). The first
 * input byte picks the mode: even, the rest of the input is the blob; odd,
 * the rest is a list of (offset, value) byte patches applied to a real QEMU
 * tree (host-tests/data), which reaches the deep structure paths at once. Every
 * lookup the platform code makes is run on the result; and when libfdt's
 * fdt_check_full() accepts the blob, dt_init() must too and both must walk
 * the same nodes.
 */
/* LIBSRC: lib/fdt.c lib/fdt-query.c lib/string.c */
/* LIBS: -lfdt */
/* FUZZFLAGS: -max_len=16384 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libfdt.h>
#include "../lib/fdt.h"

#define SEED_FILE "virt-gicv3-smp4.dtb"
#define MAX_BLOB 65536

static uint8_t seed[MAX_BLOB];
static size_t seed_size;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[512], *dir = strdup(__FILE__), *slash = strrchr(dir, '/');
	FILE *f;

	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/data/%s", slash ? dir : ".", SEED_FILE);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "fuzz_fdt: cannot open %s\n", path);
		abort();
	}
	seed_size = fread(seed, 1, sizeof(seed), f);
	fclose(f);
	free(dir);
	return 0;
}

static volatile uint8_t sink;

/* Touch every byte a returned value claims, so ASan sees any overrun. */
static void touch(const void *p, int len)
{
	const uint8_t *b = p;
	int i;

	for (i = 0; p && i < len; i++)
		sink ^= b[i];
}

static void exercise(const struct dt *dt)
{
	static const char *const compats[] = { "arm,pl011", "arm,gic-v3", "virtio,mmio",
						"arm,armv8-timer", "arm,psci-1.0" };
	static const char *const paths[] = { "/chosen", "/cpus/cpu@1", "/memory", "/intc/its",
					     "serial0", "/a/b/c", "" };
	struct dt_range banks[4];
	u64 ids[8], a, s;
	const char *name, *args;
	uint32_t cells[8];
	int node, prop, len, i, nodes = 0, depth = 0;

	for (node = 0; node >= 0 && nodes < 400; node = dt_next_node(dt, node, &depth), nodes++) {
		touch(dt_get_name(dt, node, &len), len + 1);
		for (prop = dt_first_prop(dt, node); prop >= 0; prop = dt_next_prop(dt, prop)) {
			const void *v = dt_prop_at(dt, prop, &name, &len);

			if (v) {
				touch(v, len);
				touch(name, (int)strlen(name) + 1);
			}
		}
		for (i = 0; i < 3; i++)
			dt_reg(dt, node, i, &a, &s);
		dt_parent(dt, node);
		dt_first_child(dt, node);
		dt_next_sibling(dt, node);
		dt_is_enabled(dt, node);
		dt_read_cells(dt, node, "interrupts", cells, 8);
		dt_addr_cells(dt, node);
	}
	for (i = 0; i < (int)(sizeof(paths) / sizeof(paths[0])); i++)
		dt_path_offset(dt, paths[i]);
	for (i = 0; i < (int)(sizeof(compats) / sizeof(compats[0])); i++)
		for (node = dt_find_compatible(dt, -1, compats[i]); node >= 0;
		     node = dt_find_compatible(dt, node, compats[i]))
			dt_reg(dt, node, 0, &a, &s);
	dt_memory(dt, banks, 4);
	dt_cpus(dt, ids, 8);
	dt_stdout_node(dt);
	args = dt_bootargs(dt);
	if (args)
		touch(args, (int)strlen(args) + 1);
}

/* When libfdt finds nothing wrong, the two readers must agree on the nodes. */
static void differential(const uint8_t *blob, size_t size, const struct dt *dt, int err)
{
	int a = 0, b = 0, da = 0, db = 0, n = 0;

	if (fdt_check_full(blob, size) != 0)
		return;
	if (err) {
		fprintf(stderr, "libfdt accepts the blob, dt_init() says %s\n", dt_strerror(err));
		abort();
	}
	for (; a >= 0 && da >= 0 && n < 400; a = fdt_next_node(blob, a, &da),
					      b = dt_next_node(dt, b, &db), n++) {
		if (a != b || da != db) {
			fprintf(stderr, "walks differ: libfdt %d (depth %d), dt %d (depth %d)\n",
				a, da, b, db);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *blob;
	size_t blob_size, i;
	struct dt dt;
	int err;

	if (size < 1)
		return 0;
	if (data[0] & 1) {
		blob_size = seed_size;
		blob = malloc(blob_size);
		memcpy(blob, seed, blob_size);
		for (i = 1; i + 2 < size; i += 3)
			blob[((size_t)data[i] << 8 | data[i + 1]) % blob_size] = data[i + 2];
	} else {
		/* An exact-size copy, so ASan catches a read one byte past the end. */
		blob_size = size - 1;
		blob = malloc(blob_size ? blob_size : 1);
		memcpy(blob, data + 1, blob_size);
	}
	err = dt_init(&dt, blob, blob_size);
	if (!err)
		exercise(&dt);
	differential(blob, blob_size, &dt, err);
	free(blob);
	return 0;
}
