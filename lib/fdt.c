/* SPDX-License-Identifier: GPL-2.0-only */
/* The device tree walker: header checks, token walks, nodes and their properties. */
#include "libc.h"
#include "fdt.h"

#define DT_MAGIC		0xd00dfeedu
#define DT_HEADER_V16_SIZE	36	/* up to size_dt_strings */
#define DT_HEADER_V17_SIZE	40	/* adds size_dt_struct */
#define DT_FIRST_VERSION	16
#define DT_LAST_COMP_VERSION	17

/* Structure block tokens (Devicetree Specification, 5.4.1). */
#define DT_BEGIN_NODE		1
#define DT_END_NODE		2
#define DT_PROP			3
#define DT_NOP			4
#define DT_END			9
#define DT_TOKEN_SIZE		4
#define DT_PROP_HDR_SIZE	12	/* token, len, nameoff */

/* Header fields, as byte offsets. */
enum {
	HDR_MAGIC = 0, HDR_TOTALSIZE = 4, HDR_OFF_STRUCT = 8, HDR_OFF_STRINGS = 12,
	HDR_OFF_RSVMAP = 16, HDR_VERSION = 20, HDR_LAST_COMP = 24, HDR_BOOT_CPUID = 28,
	HDR_SIZE_STRINGS = 32, HDR_SIZE_STRUCT = 36,
};

static u32 align4(u64 x)
{
	return (u32)((x + 3) & ~(u64)3);
}

int dt_init(struct dt *dt, const void *blob, size_t avail)
{
	const u8 *b = blob;
	u32 version, hdr_size;
	u64 total;

	memset(dt, 0, sizeof(*dt));
	if (!blob || avail < DT_HEADER_V16_SIZE)
		return DT_ERR_TRUNCATED;
	if (dt_be32(b + HDR_MAGIC) != DT_MAGIC)
		return DT_ERR_BADMAGIC;
	version = dt_be32(b + HDR_VERSION);
	if (version < DT_FIRST_VERSION || dt_be32(b + HDR_LAST_COMP) > DT_LAST_COMP_VERSION)
		return DT_ERR_BADVERSION;
	hdr_size = version >= 17 ? DT_HEADER_V17_SIZE : DT_HEADER_V16_SIZE;
	total = dt_be32(b + HDR_TOTALSIZE);
	if (total > avail || total < hdr_size)
		return DT_ERR_TRUNCATED;
	if (total > INT32_MAX)
		return DT_ERR_BADLAYOUT;
	dt->blob = b;
	dt->size = (u32)total;
	dt->struct_off = dt_be32(b + HDR_OFF_STRUCT);
	dt->strings_off = dt_be32(b + HDR_OFF_STRINGS);
	dt->strings_size = dt_be32(b + HDR_SIZE_STRINGS);
	dt->boot_cpuid = dt_be32(b + HDR_BOOT_CPUID);
	if (dt->struct_off < hdr_size || dt->struct_off > total || dt->struct_off % 4)
		return DT_ERR_BADLAYOUT;
	if (version >= 17)
		dt->struct_size = dt_be32(b + HDR_SIZE_STRUCT);
	else
		dt->struct_size = (u32)total - dt->struct_off;
	if ((u64)dt->struct_off + dt->struct_size > total ||
	    (u64)dt->strings_off + dt->strings_size > total)
		return DT_ERR_BADLAYOUT;
	if (dt->struct_size < 2 * DT_TOKEN_SIZE ||
	    dt_be32(b + dt->struct_off) != DT_BEGIN_NODE)
		return DT_ERR_BADSTRUCTURE;
	return 0;
}

const char *dt_strerror(int err)
{
	static const char *const msg[] = {
		[0] = "no error",
		[-DT_ERR_NOTFOUND] = "not found",
		[-DT_ERR_TRUNCATED] = "blob truncated",
		[-DT_ERR_BADMAGIC] = "bad magic (not a device tree)",
		[-DT_ERR_BADVERSION] = "unsupported version",
		[-DT_ERR_BADLAYOUT] = "header blocks out of bounds",
		[-DT_ERR_BADSTRUCTURE] = "corrupt structure block",
		[-DT_ERR_BADOFFSET] = "offset is not a node or property",
		[-DT_ERR_BADVALUE] = "bad property value",
		[-DT_ERR_TOODEEP] = "tree nested too deeply",
	};

	if (err > 0 || -err >= (int)ARRAY_SIZE(msg) || !msg[-err])
		return "unknown error";
	return msg[-err];
}

/*
 * The token at structure offset off; *next gets the offset after it (always
 * larger than off). Returns the token or DT_ERR_BADSTRUCTURE.
 */
static int next_tag(const struct dt *dt, int off, int *next)
{
	const u8 *s = dt->blob + dt->struct_off;
	u32 size = dt->struct_size;
	u32 tag, len;
	const u8 *nul;

	if (off < 0 || off % 4 || (u64)off + DT_TOKEN_SIZE > size)
		return DT_ERR_BADSTRUCTURE;
	tag = dt_be32(s + off);
	switch (tag) {
	case DT_BEGIN_NODE:
		nul = memchr(s + off + DT_TOKEN_SIZE, 0, size - off - DT_TOKEN_SIZE);
		if (!nul)
			return DT_ERR_BADSTRUCTURE;
		*next = (int)align4((u64)(nul - s) + 1);
		break;
	case DT_PROP:
		if ((u64)off + DT_PROP_HDR_SIZE > size)
			return DT_ERR_BADSTRUCTURE;
		len = dt_be32(s + off + 4);
		if (len > size - off - DT_PROP_HDR_SIZE)
			return DT_ERR_BADSTRUCTURE;
		*next = (int)align4((u64)off + DT_PROP_HDR_SIZE + len);
		break;
	case DT_END_NODE:
	case DT_NOP:
	case DT_END:
		*next = off + DT_TOKEN_SIZE;
		break;
	default:
		return DT_ERR_BADSTRUCTURE;
	}
	return (int)tag;
}

/* 0 if node is a BEGIN_NODE; a corrupt one is BADSTRUCTURE, anything else BADOFFSET. */
static int check_node(const struct dt *dt, int node)
{
	int next, tag;

	if (node < 0 || node % 4 || (u32)node >= dt->struct_size)
		return DT_ERR_BADOFFSET;
	tag = next_tag(dt, node, &next);
	if (tag < 0)
		return tag;
	return tag == DT_BEGIN_NODE ? 0 : DT_ERR_BADOFFSET;
}

int dt_next_node(const struct dt *dt, int node, int *depth)
{
	int off, tag, next, err, d = depth ? *depth : 0;

	if (node < 0)
		return next_tag(dt, 0, &next) == DT_BEGIN_NODE ? 0 : DT_ERR_BADSTRUCTURE;
	if ((err = check_node(dt, node)))
		return err;
	next_tag(dt, node, &off);
	for (;;) {
		tag = next_tag(dt, off, &next);
		if (tag < 0)
			return tag;
		if (tag == DT_BEGIN_NODE) {
			if (depth)
				*depth = d + 1;
			return off;
		}
		if (tag == DT_END)
			return DT_ERR_NOTFOUND;
		/* With depth, stop where the walk leaves the node it began in. */
		if (tag == DT_END_NODE && --d < 0 && depth) {
			*depth = d;
			return DT_ERR_NOTFOUND;
		}
		off = next;
	}
}

int dt_first_child(const struct dt *dt, int node)
{
	int depth = 0, child = dt_next_node(dt, node, &depth);

	if (child < 0)
		return child;
	return depth == 1 ? child : DT_ERR_NOTFOUND;
}

int dt_next_sibling(const struct dt *dt, int node)
{
	int depth = 1, off = node;

	do {
		off = dt_next_node(dt, off, &depth);
		if (off < 0)
			return off;
	} while (depth > 1);
	return depth == 1 ? off : DT_ERR_NOTFOUND;
}

int dt_parent(const struct dt *dt, int node)
{
	int stack[DT_MAX_DEPTH];
	int depth = 0, off = 0, err;

	if ((err = check_node(dt, node)))
		return err;
	while (off >= 0 && off <= node) {
		if (depth >= DT_MAX_DEPTH)
			return DT_ERR_TOODEEP;
		stack[depth] = off;
		if (off == node)
			return depth ? stack[depth - 1] : DT_ERR_NOTFOUND;
		off = dt_next_node(dt, off, &depth);
	}
	return off < 0 ? off : DT_ERR_BADOFFSET;
}

const char *dt_get_name(const struct dt *dt, int node, int *len)
{
	const char *name;
	int err = check_node(dt, node);

	if (err) {
		if (len)
			*len = err;
		return NULL;
	}
	name = (const char *)dt->blob + dt->struct_off + node + DT_TOKEN_SIZE;
	if (len)
		*len = (int)strlen(name);	/* terminated: next_tag() found the NUL */
	return name;
}

/* The first PROP at or after off among a node's own tokens (NOPs skipped). */
static int prop_from(const struct dt *dt, int off)
{
	int tag, next;

	for (;;) {
		tag = next_tag(dt, off, &next);
		if (tag < 0)
			return tag;
		if (tag == DT_PROP)
			return off;
		if (tag != DT_NOP)
			return DT_ERR_NOTFOUND;
		off = next;
	}
}

int dt_first_prop(const struct dt *dt, int node)
{
	int next, err = check_node(dt, node);

	if (err)
		return err;
	next_tag(dt, node, &next);
	return prop_from(dt, next);
}

int dt_next_prop(const struct dt *dt, int prop)
{
	int next;

	if (next_tag(dt, prop, &next) != DT_PROP)
		return DT_ERR_BADOFFSET;
	return prop_from(dt, next);
}

const void *dt_prop_at(const struct dt *dt, int prop, const char **name, int *len)
{
	const u8 *p = dt->blob + dt->struct_off + prop;
	u32 nameoff;
	int next, err = DT_ERR_BADOFFSET;

	if (next_tag(dt, prop, &next) != DT_PROP)
		goto fail;
	nameoff = dt_be32(p + 8);
	err = DT_ERR_BADSTRUCTURE;
	if (nameoff >= dt->strings_size ||
	    !memchr(dt->blob + dt->strings_off + nameoff, 0, dt->strings_size - nameoff))
		goto fail;
	if (name)
		*name = (const char *)dt->blob + dt->strings_off + nameoff;
	if (len)
		*len = (int)dt_be32(p + 4);
	return p + DT_PROP_HDR_SIZE;
fail:
	if (len)
		*len = err;
	return NULL;
}

const void *dt_getprop(const struct dt *dt, int node, const char *name, int *len)
{
	const char *pname;
	const void *val;
	int prop, plen;

	for (prop = dt_first_prop(dt, node); prop >= 0; prop = dt_next_prop(dt, prop)) {
		val = dt_prop_at(dt, prop, &pname, &plen);
		if (!val) {
			prop = plen;
			break;
		}
		if (!strcmp(pname, name)) {
			if (len)
				*len = plen;
			return val;
		}
	}
	if (len)
		*len = prop;
	return NULL;
}
