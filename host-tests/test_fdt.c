// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/fdt.c and lib/fdt-query.c against the host's libfdt, on device trees QEMU's virt machine
 * dumped (the .dtb files in host-tests/data: GICv2 and GICv3, 1 to 4 CPUs, EL2, with and
 * without virtio-serial and bootargs): the same nodes in the same order at
 * the same depths, names, properties, parents, children, paths, compatible
 * searches, reg decoding, memory, CPUs, bootargs and stdout-path; and what
 * each machine configuration must show (GIC, ITS, CPU count, RAM). Then
 * corrupt blobs: every kind of damage gives its error code, never a crash.
 *
 * Regenerating the data: qemu-system-aarch64 -machine virt,gic-version=N,
 * dumpdtb=raw.dtb -accel tcg -cpu max -m 256 -smp N -nodefaults -kernel any
 * -append "..." (see the table below), then libfdt's fdt_pack() with the
 * rng-seed and kaslr-seed values zeroed.
 */
/* LIBSRC: lib/fdt.c lib/fdt-query.c lib/string.c */
/* LIBS: -lfdt */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libfdt.h>
#include "../lib/fdt.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_BLOB (1 << 20)
/* The header's fields, by their offsets (the devicetree specification, 5.2) */
#define FDT_HDR_MAGIC		  0
#define FDT_HDR_TOTALSIZE	  4
#define FDT_HDR_OFF_DT_STRUCT	  8
#define FDT_HDR_VERSION		  20
#define FDT_HDR_LAST_COMP_VERSION 24
#define FDT_HDR_SIZE_DT_STRINGS	  32
#define FDT_HDR_SIZE_DT_STRUCT	  36

/* What each dumped configuration must show. */
static const struct machine {
	const char *file;
	const char *gic_compat;
	bool its;
	int cpus;
	uint64_t mem;
	const char *bootargs;	/* "" when QEMU had no -append */
	const char *psci_method;
} machines[] = {
	{ "virt-gicv2-smp1.dtb", "arm,cortex-a15-gic", false, 1, 256 << 20, "smp=1 mem=256 gic=2", "hvc" },
	{ "virt-gicv2-smp4.dtb", "arm,cortex-a15-gic", false, 4, 256 << 20, "smp=4 mem=256 gic=2", "hvc" },
	{ "virt-gicv3-smp1.dtb", "arm,gic-v3", true, 1, 256 << 20, "smp=1 mem=256 gic=3", "hvc" },
	{ "virt-gicv3-smp4.dtb", "arm,gic-v3", true, 4, 256 << 20, "smp=4 mem=256 gic=3", "hvc" },
	{ "virt-gicv3-smp4-novirtio-noargs.dtb", "arm,gic-v3", true, 4, 256 << 20, "", "hvc" },
	{ "virt-gicv3-el2-smp2-1g.dtb", "arm,gic-v3", true, 2, 1024ULL << 20, "smp=2 mem=1024 gic=3 mode=pass", "smc" },
};

static const char *const compats[] = {
	"arm,pl011", "arm,cortex-a15-gic", "arm,gic-v3", "arm,gic-v3-its", "virtio,mmio",
	"pci-host-ecam-generic", "arm,armv8-timer", "arm,psci-1.0", "arm,psci-0.2",
	"qemu,fw-cfg-mmio", "arm,pl031", "no,such-device",
};

static char *load(const char *file, size_t *size)
{
	char path[512], *dir = strdup(__FILE__), *slash = strrchr(dir, '/');
	char *buf = malloc(MAX_BLOB);
	FILE *f;

	if (slash)
		*slash = '\0';
	snprintf(path, sizeof(path), "%s/data/%s", slash ? dir : ".", file);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	*size = fread(buf, 1, MAX_BLOB, f);
	fclose(f);
	free(dir);
	return buf;
}

static uint64_t cells(const fdt32_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 32 | fdt32_to_cpu(*p++);
	return v;
}

/* Every property of node: same offsets, names, lengths and value pointers. */
static void compare_props(const void *blob, const struct dt *dt, int node)
{
	int a = fdt_first_property_offset(blob, node), b = dt_first_prop(dt, node);

	for (; a >= 0; a = fdt_next_property_offset(blob, a), b = dt_next_prop(dt, b)) {
		const char *na, *nb;
		int la, lb;
		const void *va = fdt_getprop_by_offset(blob, a, &na, &la);
		const void *vb = dt_prop_at(dt, b, &nb, &lb);

		assert_int_equal(a, b);
		assert_string_equal(na, nb);
		assert_int_equal(la, lb);
		assert_ptr_equal(va, vb);
		assert_ptr_equal(dt_getprop(dt, node, na, &lb), fdt_getprop(blob, node, na, &la));
	}
	assert_int_equal(b, DT_ERR_NOTFOUND);
	assert_null(dt_getprop(dt, node, "no-such-property", &b));
	assert_int_equal(b, DT_ERR_NOTFOUND);
}

/* reg decoded by dt_reg() equals reg decoded here with libfdt's cell sizes. */
static void compare_reg(const void *blob, const struct dt *dt, int node)
{
	int parent = fdt_parent_offset(blob, node), len, ac, sc, i, n;
	const fdt32_t *reg = fdt_getprop(blob, node, "reg", &len);
	u64 addr, size;

	if (!reg || parent < 0)
		return;
	ac = fdt_address_cells(blob, parent);
	sc = fdt_size_cells(blob, parent);
	if (ac < 1 || ac > 2 || sc > 2) {
		assert_int_equal(dt_reg(dt, node, 0, &addr, &size), DT_ERR_BADVALUE);
		return;
	}
	n = len / (4 * (ac + sc));
	for (i = 0; i < n; i++) {
		assert_int_equal(dt_reg(dt, node, i, &addr, &size), 0);
		assert_int_equal(addr, cells(reg + i * (ac + sc), ac));
		assert_int_equal(size, cells(reg + i * (ac + sc) + ac, sc));
	}
	assert_int_equal(dt_reg(dt, node, n, &addr, &size), DT_ERR_NOTFOUND);
}

static void compare_structure(const void *blob, const struct dt *dt)
{
	int a = 0, b = 0, da = 0, db = 0, nodes = 0;

	for (; a >= 0 && da >= 0; a = fdt_next_node(blob, a, &da), b = dt_next_node(dt, b, &db)) {
		char path[256];
		int la, lb;
		const char *na = fdt_get_name(blob, a, &la), *nb = dt_get_name(dt, b, &lb);

		assert_int_equal(a, b);
		assert_int_equal(da, db);
		assert_string_equal(na, nb);
		assert_int_equal(la, lb);
		assert_int_equal(dt_parent(dt, b), fdt_parent_offset(blob, a) < 0 ? DT_ERR_NOTFOUND
									     : fdt_parent_offset(blob, a));
		assert_int_equal(dt_first_child(dt, b), fdt_first_subnode(blob, a) < 0
				 ? DT_ERR_NOTFOUND : fdt_first_subnode(blob, a));
		if (a)
			assert_int_equal(dt_next_sibling(dt, b), fdt_next_subnode(blob, a) < 0
					 ? DT_ERR_NOTFOUND : fdt_next_subnode(blob, a));
		assert_int_equal(fdt_get_path(blob, a, path, sizeof(path)), 0);
		assert_int_equal(dt_path_offset(dt, path), a);
		compare_props(blob, dt, a);
		compare_reg(blob, dt, a);
		nodes++;
	}
	assert_int_equal(b, DT_ERR_NOTFOUND);
	assert_true(nodes > 50);
}

static void compare_lookups(const void *blob, const struct dt *dt)
{
	static const char *const paths[] = {
		"/", "/chosen", "/memory", "/cpus", "/cpus/cpu@1", "/cpus/cpu", "/psci", "/intc",
		"/intc/its", "/nonexistent", "/cpus/nonexistent", "//chosen/", "/pl011@9000000",
	};
	unsigned i;

	for (i = 0; i < ARRAY_LEN(paths); i++) {
		int want = fdt_path_offset(blob, paths[i]);

		assert_int_equal(dt_path_offset(dt, paths[i]), want < 0 ? DT_ERR_NOTFOUND : want);
	}
	for (i = 0; i < ARRAY_LEN(compats); i++) {
		int a = fdt_node_offset_by_compatible(blob, -1, compats[i]);
		int b = dt_find_compatible(dt, -1, compats[i]);

		for (; a >= 0; a = fdt_node_offset_by_compatible(blob, a, compats[i]),
			       b = dt_find_compatible(dt, b, compats[i])) {
			assert_int_equal(a, b);
			assert_true(dt_is_compatible(dt, b, compats[i]));
		}
		assert_int_equal(b, DT_ERR_NOTFOUND);
	}
}

static void check_machine(const struct machine *m, const void *blob, const struct dt *dt)
{
	struct dt_range banks[4];
	u64 ids[8], base;
	const char *method;
	int i, n, node, len;

	assert_int_equal(dt_memory(dt, banks, 4), 1);
	assert_int_equal(banks[0].start, 0x40000000);
	assert_int_equal(banks[0].size, m->mem);
	assert_string_equal(dt_bootargs(dt), m->bootargs);

	n = dt_cpus(dt, ids, 8);
	assert_int_equal(n, m->cpus);
	for (i = 0; i < n; i++)
		assert_int_equal(ids[i], i);	/* QEMU: Aff0 = index for up to 8 CPUs */

	node = dt_find_compatible(dt, -1, m->gic_compat);
	assert_true(node > 0);
	assert_int_equal(dt_reg(dt, node, 0, &base, NULL), 0);
	assert_int_equal(base, 0x08000000);
	assert_int_equal(dt_find_compatible(dt, -1, "arm,gic-v3-its") > 0, m->its);

	node = dt_stdout_node(dt);
	assert_true(node > 0);
	assert_true(dt_is_compatible(dt, node, "arm,pl011"));
	assert_int_equal(dt_reg(dt, node, 0, &base, NULL), 0);
	assert_int_equal(base, 0x09000000);

	node = dt_find_compatible(dt, -1, "arm,psci-1.0");
	method = dt_getprop(dt, node, "method", &len);
	assert_non_null(method);
	assert_string_equal(method, m->psci_method);

	for (n = 0, node = dt_find_compatible(dt, -1, "virtio,mmio"); node >= 0;
	     node = dt_find_compatible(dt, node, "virtio,mmio"))
		n += dt_is_enabled(dt, node);
	assert_int_equal(n, 32);
	(void)blob;
}

static void test_machine(void **state)
{
	const struct machine *m = *state;
	size_t size;
	char *blob = load(m->file, &size);
	struct dt dt;

	assert_int_equal(fdt_check_full(blob, size), 0);
	assert_int_equal(dt_init(&dt, blob, size), 0);
	assert_int_equal(dt.size, fdt_totalsize(blob));
	compare_structure(blob, &dt);
	compare_lookups(blob, &dt);
	check_machine(m, blob, &dt);
	free(blob);
}

/* --- damaged blobs -------------------------------------------------------- */

static void put32(char *p, uint32_t v)
{
	fdt32_t be = cpu_to_fdt32(v);

	memcpy(p, &be, 4);
}

/* A walk over every node and property of any blob; returns the final error. */
static int walk_all(const struct dt *dt)
{
	int node, prop, len, err = 0;
	const char *name;
	u64 a, s;

	for (node = 0; node >= 0; node = dt_next_node(dt, node, NULL)) {
		for (prop = dt_first_prop(dt, node); prop >= 0; prop = dt_next_prop(dt, prop))
			if (!dt_prop_at(dt, prop, &name, &len))
				err = len;
		dt_reg(dt, node, 0, &a, &s);
		dt_parent(dt, node);
	}
	return node == DT_ERR_NOTFOUND ? err : node;
}

struct damaged {
	char *blob;
	size_t size;
	struct dt dt;
};

static void load_good(struct damaged *d)
{
	d->blob = load("virt-gicv3-smp4.dtb", &d->size);
	assert_int_equal(dt_init(&d->dt, d->blob, d->size), 0);
}

static char *struct_at(struct damaged *d, int off)
{
	return d->blob + fdt_off_dt_struct(d->blob) + off;
}

static void test_bad_header(void **state)
{
	struct damaged d;
	struct dt dt;
	char saved[40];

	load_good(&d);
	memcpy(saved, d.blob, sizeof(saved));
	assert_int_equal(dt_init(&dt, NULL, 100), DT_ERR_TRUNCATED);
	assert_int_equal(dt_init(&dt, d.blob, 35), DT_ERR_TRUNCATED);
	assert_int_equal(dt_init(&dt, d.blob, d.size - 1), DT_ERR_TRUNCATED);
	{
		/* one header field written over at a time, the rest as loaded */
		const struct {
			unsigned field;
			uint32_t value;
			int want;
		} bad[] = {
			{ FDT_HDR_MAGIC, 0xdeadbeef, DT_ERR_BADMAGIC },
			{ FDT_HDR_VERSION, 15, DT_ERR_BADVERSION },
			{ FDT_HDR_LAST_COMP_VERSION, 18, DT_ERR_BADVERSION },
			{ FDT_HDR_OFF_DT_STRUCT, (uint32_t)d.size + 4, DT_ERR_BADLAYOUT },
			{ FDT_HDR_OFF_DT_STRUCT, fdt_off_dt_struct(d.blob) + 2, DT_ERR_BADLAYOUT },
			{ FDT_HDR_SIZE_DT_STRINGS, 0xffffffff, DT_ERR_BADLAYOUT },
			{ FDT_HDR_SIZE_DT_STRUCT, 0xfffffff0, DT_ERR_BADLAYOUT },
		};

		for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
			put32(d.blob + bad[i].field, bad[i].value);
			assert_int_equal(dt_init(&dt, d.blob, d.size), bad[i].want);
			memcpy(d.blob, saved, sizeof(saved));
		}
	}
	put32(struct_at(&d, 0), 2);	/* root is not a BEGIN_NODE */
	assert_int_equal(dt_init(&dt, d.blob, d.size), DT_ERR_BADSTRUCTURE);
	free(d.blob);
}

/*
 * A totalsize smaller than the header is a truncated blob (libfdt says
 * TRUNCATED too), not a layout error: for every such size, with the
 * version 17 header the data have and with a version 16 one.
 */
#define HEADER_SIZE(version) ((version) >= 17 ? 40u : 36u)

static void test_totalsize_below_header(void **state)
{
	static const uint32_t versions[] = { 17, 16 };
	struct damaged d;
	struct dt dt;

	load_good(&d);
	for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
		put32(d.blob + FDT_HDR_VERSION, versions[v]);
		put32(d.blob + FDT_HDR_LAST_COMP_VERSION, 16);
		for (uint32_t total = 0; total < HEADER_SIZE(versions[v]); total++) {
			int got;

			put32(d.blob + FDT_HDR_TOTALSIZE, total);
			got = dt_init(&dt, d.blob, d.size);
			if (got != DT_ERR_TRUNCATED)
				fail_msg("version %u, totalsize %u: %s (%d), want %s", versions[v], total,
					 dt_strerror(got), got, dt_strerror(DT_ERR_TRUNCATED));
			assert_int_equal(fdt_check_header(d.blob), -FDT_ERR_TRUNCATED);
		}
	}
	free(d.blob);
}

static void test_bad_structure(void **state)
{
	struct damaged d;
	int chosen, prop;
	uint32_t nameoff_pos;

	load_good(&d);
	chosen = fdt_path_offset(d.blob, "/chosen");
	prop = fdt_first_property_offset(d.blob, chosen);

	/* An unknown token in the middle: the walk stops with an error. */
	put32(struct_at(&d, prop), 7);
	assert_int_equal(walk_all(&d.dt), DT_ERR_BADSTRUCTURE);
	assert_null(dt_getprop(&d.dt, chosen, "bootargs", NULL));
	put32(struct_at(&d, prop), 3);

	/* A property longer than the structure block. */
	put32(struct_at(&d, prop + 4), 0x7ffffff0);
	assert_int_equal(walk_all(&d.dt), DT_ERR_BADSTRUCTURE);
	free(d.blob);

	/* A name offset past the strings block. */
	load_good(&d);
	nameoff_pos = (uint32_t)prop + 8;
	put32(struct_at(&d, (int)nameoff_pos), fdt_size_dt_strings(d.blob) + 10);
	assert_int_equal(walk_all(&d.dt), DT_ERR_BADSTRUCTURE);
	free(d.blob);

	/* The END token gone: the walk runs into the block's end and stops. */
	load_good(&d);
	put32(struct_at(&d, (int)fdt_size_dt_struct(d.blob) - 4), 4);	/* NOP */
	assert_int_equal(walk_all(&d.dt), DT_ERR_BADSTRUCTURE);
	free(d.blob);

	/* A node name running to the end of the block. */
	load_good(&d);
	memset(struct_at(&d, 4), 'x', fdt_size_dt_struct(d.blob) - 4);
	assert_int_equal(dt_next_node(&d.dt, 0, NULL), DT_ERR_BADSTRUCTURE);
	assert_null(dt_get_name(&d.dt, 0, NULL));
	free(d.blob);


	/* Offsets that are not nodes. */
	load_good(&d);
	assert_int_equal(dt_next_node(&d.dt, 2, NULL), DT_ERR_BADOFFSET);
	assert_int_equal(dt_parent(&d.dt, prop), DT_ERR_BADOFFSET);
	assert_int_equal(dt_first_prop(&d.dt, 1 << 30), DT_ERR_BADOFFSET);
	assert_int_equal(dt_parent(&d.dt, 0), DT_ERR_NOTFOUND);
	free(d.blob);
}

/* Trees written with libfdt's sequential API, for values QEMU never produces. */
static char *build_tree(int depth, const char *bootargs, int bootargs_len, uint32_t addr_cells)
{
	char *buf = calloc(1, 65536);
	fdt32_t ac = cpu_to_fdt32(addr_cells), reg[3] = { 0, cpu_to_fdt32(0x1000), 0 };
	int i;

	assert_int_equal(fdt_create(buf, 65536), 0);
	assert_int_equal(fdt_finish_reservemap(buf), 0);
	assert_int_equal(fdt_begin_node(buf, ""), 0);
	assert_int_equal(fdt_property(buf, "#address-cells", &ac, 4), 0);
	assert_int_equal(fdt_begin_node(buf, "chosen"), 0);
	assert_int_equal(fdt_property(buf, "bootargs", bootargs, bootargs_len), 0);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_begin_node(buf, "dev@1000"), 0);
	assert_int_equal(fdt_property(buf, "reg", reg, 8), 0);	/* short for 3 cells */
	assert_int_equal(fdt_end_node(buf), 0);
	for (i = 0; i < depth; i++)
		assert_int_equal(fdt_begin_node(buf, "n"), 0);
	for (i = 0; i < depth; i++)
		assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_end_node(buf), 0);
	assert_int_equal(fdt_finish(buf), 0);
	return buf;
}

static void test_bad_values(void **state)
{
	char *blob = build_tree(DT_MAX_DEPTH + 8, "no terminator", 13, 3);
	struct dt dt;
	int node, depth = 0, deepest = 0;
	u64 a;

	assert_int_equal(dt_init(&dt, blob, fdt_totalsize(blob)), 0);
	assert_null(dt_bootargs(&dt));
	assert_int_equal(dt_reg(&dt, dt_path_offset(&dt, "/dev"), 0, &a, NULL), DT_ERR_BADVALUE);
	for (node = 0; node >= 0; node = dt_next_node(&dt, node, &depth))
		if (depth > DT_MAX_DEPTH)
			deepest = node;
	assert_true(deepest > 0);
	assert_int_equal(dt_parent(&dt, deepest), DT_ERR_TOODEEP);
	assert_int_equal(dt_cpus(&dt, NULL, 0), DT_ERR_NOTFOUND);
	assert_int_equal(dt_memory(&dt, NULL, 0), 0);
	free(blob);

	blob = build_tree(1, "", 0, 1);
	assert_int_equal(dt_init(&dt, blob, fdt_totalsize(blob)), 0);
	assert_null(dt_bootargs(&dt));	/* empty, not even a NUL */
	assert_int_equal(dt_reg(&dt, dt_path_offset(&dt, "/dev@1000"), 0, &a, NULL), 0);
	assert_int_equal(a, 0);
	assert_int_equal(dt_stdout_node(&dt), DT_ERR_NOTFOUND);
	free(blob);
}

static void test_strerror(void **state)
{
	int err;

	for (err = 0; err >= DT_ERR_TOODEEP; err--)
		assert_string_not_equal(dt_strerror(err), "unknown error");
	assert_string_equal(dt_strerror(-100), "unknown error");
	assert_string_equal(dt_strerror(5), "unknown error");
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_LEN(machines) + 5];
	size_t i;

	for (i = 0; i < ARRAY_LEN(machines); i++) {
		tests[i] = (struct CMUnitTest)cmocka_unit_test(test_machine);
		tests[i].name = machines[i].file;
		tests[i].initial_state = (void *)&machines[i];
	}
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_bad_header);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_totalsize_below_header);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_bad_structure);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_bad_values);
	tests[i++] = (struct CMUnitTest)cmocka_unit_test(test_strerror);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
