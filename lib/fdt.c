/* SPDX-License-Identifier: GPL-2.0-only */
/* The device tree reader: header checks, token walks and the lookups the platform code needs. */
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

static uint32_t be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t align4(uint64_t x)
{
	return (uint32_t)((x + 3) & ~(uint64_t)3);
}

int dt_init(struct dt *dt, const void *blob, size_t avail)
{
	const uint8_t *b = blob;
	uint32_t version, hdr_size;
	uint64_t total;

	memset(dt, 0, sizeof(*dt));
	if (!blob || avail < DT_HEADER_V16_SIZE)
		return DT_ERR_TRUNCATED;
	if (be32_at(b + HDR_MAGIC) != DT_MAGIC)
		return DT_ERR_BADMAGIC;
	version = be32_at(b + HDR_VERSION);
	if (version < DT_FIRST_VERSION || be32_at(b + HDR_LAST_COMP) > DT_LAST_COMP_VERSION)
		return DT_ERR_BADVERSION;
	hdr_size = version >= 17 ? DT_HEADER_V17_SIZE : DT_HEADER_V16_SIZE;
	total = be32_at(b + HDR_TOTALSIZE);
	if (total > avail || total < hdr_size)
		return DT_ERR_TRUNCATED;
	if (total > INT32_MAX)
		return DT_ERR_BADLAYOUT;
	dt->blob = b;
	dt->size = (uint32_t)total;
	dt->struct_off = be32_at(b + HDR_OFF_STRUCT);
	dt->strings_off = be32_at(b + HDR_OFF_STRINGS);
	dt->strings_size = be32_at(b + HDR_SIZE_STRINGS);
	dt->boot_cpuid = be32_at(b + HDR_BOOT_CPUID);
	if (dt->struct_off < hdr_size || dt->struct_off > total || dt->struct_off % 4)
		return DT_ERR_BADLAYOUT;
	if (version >= 17)
		dt->struct_size = be32_at(b + HDR_SIZE_STRUCT);
	else
		dt->struct_size = (uint32_t)total - dt->struct_off;
	if ((uint64_t)dt->struct_off + dt->struct_size > total ||
	    (uint64_t)dt->strings_off + dt->strings_size > total)
		return DT_ERR_BADLAYOUT;
	if (dt->struct_size < 2 * DT_TOKEN_SIZE ||
	    be32_at(b + dt->struct_off) != DT_BEGIN_NODE)
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
	const uint8_t *s = dt->blob + dt->struct_off;
	uint32_t size = dt->struct_size;
	uint32_t tag, len;
	const uint8_t *nul;

	if (off < 0 || off % 4 || (uint64_t)off + DT_TOKEN_SIZE > size)
		return DT_ERR_BADSTRUCTURE;
	tag = be32_at(s + off);
	switch (tag) {
	case DT_BEGIN_NODE:
		nul = memchr(s + off + DT_TOKEN_SIZE, 0, size - off - DT_TOKEN_SIZE);
		if (!nul)
			return DT_ERR_BADSTRUCTURE;
		*next = (int)align4((uint64_t)(nul - s) + 1);
		break;
	case DT_PROP:
		if ((uint64_t)off + DT_PROP_HDR_SIZE > size)
			return DT_ERR_BADSTRUCTURE;
		len = be32_at(s + off + 4);
		if (len > size - off - DT_PROP_HDR_SIZE)
			return DT_ERR_BADSTRUCTURE;
		*next = (int)align4((uint64_t)off + DT_PROP_HDR_SIZE + len);
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

	if (node < 0 || node % 4 || (uint32_t)node >= dt->struct_size)
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
	const uint8_t *p = dt->blob + dt->struct_off + prop;
	uint32_t nameoff;
	int next, err = DT_ERR_BADOFFSET;

	if (next_tag(dt, prop, &next) != DT_PROP)
		goto fail;
	nameoff = be32_at(p + 8);
	err = DT_ERR_BADSTRUCTURE;
	if (nameoff >= dt->strings_size ||
	    !memchr(dt->blob + dt->strings_off + nameoff, 0, dt->strings_size - nameoff))
		goto fail;
	if (name)
		*name = (const char *)dt->blob + dt->strings_off + nameoff;
	if (len)
		*len = (int)be32_at(p + 4);
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

/* Does node name (full, "x@1") match the path component comp of length n? */
static bool name_matches(const char *name, const char *comp, size_t n)
{
	if (strncmp(name, comp, n))
		return false;
	if (name[n] == '\0')
		return true;
	return name[n] == '@' && !memchr(comp, '@', n);
}

int dt_path_offset_len(const struct dt *dt, const char *path, size_t len)
{
	const char *end = path + len, *p = path, *slash, *alias;
	int node = 0, alen;

	if (len && *p != '/') {
		slash = memchr(p, '/', len);
		if (!slash)
			slash = end;
		node = dt_path_offset(dt, "/aliases");
		if (node < 0)
			return node;
		/* Property names are NUL-terminated: compare through a bounded copy. */
		{
			char name[64];

			if ((size_t)(slash - p) >= sizeof(name))
				return DT_ERR_NOTFOUND;
			memcpy(name, p, slash - p);
			name[slash - p] = '\0';
			alias = dt_getprop(dt, node, name, &alen);
		}
		if (!alias || alen < 2 || alias[alen - 1] || alias[0] != '/')
			return alias ? DT_ERR_BADVALUE : DT_ERR_NOTFOUND;
		node = dt_path_offset_len(dt, alias, (size_t)alen - 1);
		if (node < 0)
			return node;
		p = slash;
	}
	while (p < end) {
		size_t n;
		int child;

		if (*p == '/') {
			p++;
			continue;
		}
		slash = memchr(p, '/', end - p);
		n = (slash ? slash : end) - p;
		for (child = dt_first_child(dt, node); child >= 0;
		     child = dt_next_sibling(dt, child))
			if (name_matches(dt_get_name(dt, child, NULL), p, n))
				break;
		if (child < 0)
			return child;
		node = child;
		p += n;
	}
	return check_node(dt, node) ? DT_ERR_BADSTRUCTURE : node;
}

int dt_path_offset(const struct dt *dt, const char *path)
{
	return dt_path_offset_len(dt, path, strlen(path));
}

/* Does the string list value (len bytes) hold str as one of its entries? */
static bool stringlist_has(const char *list, int len, const char *str)
{
	size_t n = strlen(str) + 1;

	while (len > 0) {
		const char *nul = memchr(list, 0, (size_t)len);
		size_t item = nul ? (size_t)(nul - list) + 1 : (size_t)len;

		if (item == n && !memcmp(list, str, n))
			return true;
		list += item;
		len -= (int)item;
	}
	return false;
}

bool dt_is_compatible(const struct dt *dt, int node, const char *compat)
{
	int len;
	const char *list = dt_getprop(dt, node, "compatible", &len);

	return list && stringlist_has(list, len, compat);
}

int dt_find_compatible(const struct dt *dt, int start, const char *compat)
{
	int node = start < 0 ? 0 : dt_next_node(dt, start, NULL);

	for (; node >= 0; node = dt_next_node(dt, node, NULL))
		if (dt_is_compatible(dt, node, compat))
			return node;
	return node;
}

bool dt_is_enabled(const struct dt *dt, int node)
{
	int len;
	const char *status = dt_getprop(dt, node, "status", &len);

	if (!status)
		return true;
	return (len == 5 && !memcmp(status, "okay", 5)) || (len == 3 && !memcmp(status, "ok", 3));
}

int dt_read_cells(const struct dt *dt, int node, const char *name, uint32_t *out, int max)
{
	const uint8_t *p;
	int len, i;

	p = dt_getprop(dt, node, name, &len);
	if (!p)
		return len;
	if (len % 4)
		return DT_ERR_BADVALUE;
	for (i = 0; i < len / 4 && i < max; i++)
		out[i] = be32_at(p + 4 * i);
	return i;
}

int dt_read_u32(const struct dt *dt, int node, const char *name, uint32_t *out)
{
	int len;
	const uint8_t *p = dt_getprop(dt, node, name, &len);

	if (!p)
		return len;
	if (len != 4)
		return DT_ERR_BADVALUE;
	*out = be32_at(p);
	return 0;
}

static int cells_or_default(const struct dt *dt, int node, const char *name, uint32_t def)
{
	uint32_t v = 0;
	int err = dt_read_u32(dt, node, name, &v);

	if (err == DT_ERR_NOTFOUND)
		return (int)def;
	if (err)
		return err;
	return v > 4 ? DT_ERR_BADVALUE : (int)v;
}

int dt_addr_cells(const struct dt *dt, int node)
{
	return cells_or_default(dt, node, "#address-cells", 2);
}

int dt_size_cells(const struct dt *dt, int node)
{
	return cells_or_default(dt, node, "#size-cells", 1);
}

static uint64_t read_cells(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--) {
		v = v << 32 | be32_at(p);
		p += 4;
	}
	return v;
}

int dt_reg(const struct dt *dt, int node, int index, uint64_t *addr, uint64_t *size)
{
	int parent = dt_parent(dt, node);
	int ac, sc, len, entry;
	const uint8_t *p;

	if (parent < 0)
		return parent == DT_ERR_NOTFOUND ? DT_ERR_BADVALUE : parent;
	ac = dt_addr_cells(dt, parent);
	sc = dt_size_cells(dt, parent);
	if (ac < 0 || sc < 0)
		return ac < 0 ? ac : sc;
	if (ac < 1 || ac > 2 || sc > 2)
		return DT_ERR_BADVALUE;
	p = dt_getprop(dt, node, "reg", &len);
	if (!p)
		return len;
	entry = 4 * (ac + sc);
	if (len % entry)
		return DT_ERR_BADVALUE;
	if (index < 0 || index >= len / entry)
		return DT_ERR_NOTFOUND;
	p += index * entry;
	if (addr)
		*addr = read_cells(p, ac);
	if (size)
		*size = read_cells(p + 4 * ac, sc);
	return 0;
}

static bool prop_is_string(const struct dt *dt, int node, const char *name, const char *str)
{
	int len;
	const char *v = dt_getprop(dt, node, name, &len);

	return v && (size_t)len == strlen(str) + 1 && !memcmp(v, str, (size_t)len);
}

int dt_memory(const struct dt *dt, struct dt_range *banks, int max)
{
	int node, i, n = 0;
	uint64_t start, size;

	for (node = 0; node >= 0; node = dt_next_node(dt, node, NULL)) {
		if (!prop_is_string(dt, node, "device_type", "memory") || !dt_is_enabled(dt, node))
			continue;
		for (i = 0; dt_reg(dt, node, i, &start, &size) == 0; i++) {
			if (!size)
				continue;
			if (n < max) {
				banks[n].start = start;
				banks[n].size = size;
			}
			n++;
		}
	}
	return node == DT_ERR_NOTFOUND ? n : node;
}

const char *dt_bootargs(const struct dt *dt)
{
	int chosen = dt_path_offset(dt, "/chosen"), len;
	const char *args;

	if (chosen < 0)
		return chosen == DT_ERR_NOTFOUND ? "" : NULL;
	args = dt_getprop(dt, chosen, "bootargs", &len);
	if (!args)
		return len == DT_ERR_NOTFOUND ? "" : NULL;
	if (len < 1 || memchr(args, 0, (size_t)len) != args + len - 1)
		return NULL;
	return args;
}

int dt_cpus(const struct dt *dt, uint64_t *ids, int max)
{
	int cpus = dt_path_offset(dt, "/cpus"), node, n = 0, err;
	uint64_t id;

	if (cpus < 0)
		return cpus;
	for (node = dt_first_child(dt, cpus); node >= 0; node = dt_next_sibling(dt, node)) {
		if (!prop_is_string(dt, node, "device_type", "cpu") || !dt_is_enabled(dt, node))
			continue;
		err = dt_reg(dt, node, 0, &id, NULL);
		if (err)
			return err == DT_ERR_NOTFOUND ? DT_ERR_BADVALUE : err;
		if (n < max)
			ids[n] = id;
		n++;
	}
	return node == DT_ERR_NOTFOUND ? n : node;
}

int dt_stdout_node(const struct dt *dt)
{
	int chosen = dt_path_offset(dt, "/chosen"), len;
	const char *path, *colon;

	if (chosen < 0)
		return chosen;
	path = dt_getprop(dt, chosen, "stdout-path", &len);
	if (!path)
		path = dt_getprop(dt, chosen, "linux,stdout-path", &len);
	if (!path)
		return len;
	if (len < 1 || path[len - 1])
		return DT_ERR_BADVALUE;
	colon = memchr(path, ':', (size_t)len);
	return dt_path_offset_len(dt, path, colon ? (size_t)(colon - path) : (size_t)len - 1);
}
