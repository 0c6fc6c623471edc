/* SPDX-License-Identifier: GPL-2.0-only */
/* Device tree lookups on the walker (fdt.c): paths, compatible, cells and reg, memory, CPUs, /chosen. */
#include "libc.h"
#include "fdt.h"

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
	return dt_get_name(dt, node, NULL) ? node : DT_ERR_BADSTRUCTURE;
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

int dt_read_cells(const struct dt *dt, int node, const char *name, u32 *out, int max)
{
	const u8 *p;
	int len, i;

	p = dt_getprop(dt, node, name, &len);
	if (!p)
		return len;
	if (len % 4)
		return DT_ERR_BADVALUE;
	for (i = 0; i < len / 4 && i < max; i++)
		out[i] = dt_be32(p + 4 * i);
	return i;
}

int dt_read_u32(const struct dt *dt, int node, const char *name, u32 *out)
{
	int len;
	const u8 *p = dt_getprop(dt, node, name, &len);

	if (!p)
		return len;
	if (len != 4)
		return DT_ERR_BADVALUE;
	*out = dt_be32(p);
	return 0;
}

static int cells_or_default(const struct dt *dt, int node, const char *name, u32 def)
{
	u32 v = 0;
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

static u64 read_cells(const u8 *p, int n)
{
	u64 v = 0;

	while (n--) {
		v = v << 32 | dt_be32(p);
		p += 4;
	}
	return v;
}

int dt_reg(const struct dt *dt, int node, int index, u64 *addr, u64 *size)
{
	int parent = dt_parent(dt, node);
	int ac, sc, len, entry;
	const u8 *p;

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
	u64 start, size;

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

int dt_cpus(const struct dt *dt, u64 *ids, int max)
{
	int cpus = dt_path_offset(dt, "/cpus"), node, n = 0, err;
	u64 id;

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
