/* SPDX-License-Identifier: GPL-2.0-only */
/* A read-only flattened device tree (DTB) reader that bounds-checks every read of an untrusted blob. */
#ifndef VMTICK_FDT_H
#define VMTICK_FDT_H

/*
 * The walker is lib/fdt.c, the lookups built on it lib/fdt-query.c; this
 * header serves both. Only freestanding headers and lib/types.h (typedefs
 * alone) here: the host tests include this next to libfdt's <libfdt.h>, so
 * every name carries the dt_ prefix, not fdt_.
 *
 * Nodes and properties are named by their byte offset in the structure
 * block, the same numbers libfdt uses; 0 is the root. Functions that return
 * an offset return a negative DT_ERR_* on failure. A corrupt blob gives an
 * error or a wrong answer, never a read outside [blob, blob + size) and
 * never an endless loop: every walk moves strictly forward.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types.h"

enum {
	DT_ERR_NOTFOUND = -1,	/* no such node or property (not an error in the blob) */
	DT_ERR_TRUNCATED = -2,	/* blob smaller than its header says, or than a header */
	DT_ERR_BADMAGIC = -3,
	DT_ERR_BADVERSION = -4,
	DT_ERR_BADLAYOUT = -5,	/* header blocks overlap the end or are misaligned */
	DT_ERR_BADSTRUCTURE = -6, /* unknown token, unterminated name, property past the block */
	DT_ERR_BADOFFSET = -7,	/* the offset passed in is not a node (or property) */
	DT_ERR_BADVALUE = -8,	/* a property has the wrong size or an unusable value */
	DT_ERR_TOODEEP = -9,	/* nesting deeper than DT_MAX_DEPTH */
};

#define DT_MAX_DEPTH 32

struct dt {
	const u8 *blob;
	u32 size;		/* totalsize from the header, checked against what may be read */
	u32 struct_off, struct_size;
	u32 strings_off, strings_size;
	u32 boot_cpuid;
};

/* Check the header of blob, of which at most avail bytes may be read. */
int dt_init(struct dt *dt, const void *blob, size_t avail);
const char *dt_strerror(int err);

/*
 * Structure walks, in document order. With depth (as libfdt): +1 into a
 * child, -1 out of a node, and DT_ERR_NOTFOUND once it drops below 0;
 * with depth NULL the walk runs to the end of the tree.
 */
int dt_next_node(const struct dt *dt, int node, int *depth);
int dt_first_child(const struct dt *dt, int node);
int dt_next_sibling(const struct dt *dt, int node);
int dt_parent(const struct dt *dt, int node);
/* Node name with its unit address ("pl011@9000000"); *len gets its length or an error. */
const char *dt_get_name(const struct dt *dt, int node, int *len);

/* Properties of a node, in order: the first (or next) property offset. */
int dt_first_prop(const struct dt *dt, int node);
int dt_next_prop(const struct dt *dt, int prop);
/* Name, value and length of the property at offset prop; NULL and *len < 0 on error. */
const void *dt_prop_at(const struct dt *dt, int prop, const char **name, int *len);
/* Value of property name of node; NULL with *len = DT_ERR_* when absent or bad. */
const void *dt_getprop(const struct dt *dt, int node, const char *name, int *len);

/* "/cpus/cpu@1", a name without "@unit" matching the first such node, or an alias. */
int dt_path_offset(const struct dt *dt, const char *path);
int dt_path_offset_len(const struct dt *dt, const char *path, size_t len);
/* The first node after start (-1: from the root) whose compatible list has compat. */
int dt_find_compatible(const struct dt *dt, int start, const char *compat);
bool dt_is_compatible(const struct dt *dt, int node, const char *compat);
/* Is the node's status "okay" (or absent)? */
bool dt_is_enabled(const struct dt *dt, int node);

/* One big-endian cell of a property value (or a header field), at any alignment. */
static inline u32 dt_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

/* A big-endian cell property: one u32, or up to max cells (returns how many). */
int dt_read_u32(const struct dt *dt, int node, const char *name, u32 *out);
int dt_read_cells(const struct dt *dt, int node, const char *name, u32 *out, int max);
/* #address-cells / #size-cells a node gives its children (defaults 2 and 1). */
int dt_addr_cells(const struct dt *dt, int node);
int dt_size_cells(const struct dt *dt, int node);
/*
 * Entry index of node's reg, decoded with the parent's cell sizes (1 or 2
 * address cells, 0..2 size cells). No "ranges" translation: fine for the
 * flat buses of QEMU's virt machine. DT_ERR_NOTFOUND past the last entry.
 */
int dt_reg(const struct dt *dt, int node, int index, u64 *addr, u64 *size);

/* The machine-level questions the platform code asks. */
struct dt_range {
	u64 start, size;
};
/* RAM banks from device_type = "memory" nodes; returns how many (fills at most max). */
int dt_memory(const struct dt *dt, struct dt_range *banks, int max);
/* /chosen/bootargs, or "" when absent; NULL only if the property is malformed. */
const char *dt_bootargs(const struct dt *dt);
/* Hardware ids (reg, the MPIDR affinity on arm) of /cpus's cpu nodes, in tree order. */
int dt_cpus(const struct dt *dt, u64 *ids, int max);
/* The node /chosen/stdout-path names (options after ':' ignored). */
int dt_stdout_node(const struct dt *dt);

#endif
