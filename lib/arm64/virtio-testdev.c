/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The way out under QEMU: a virtio-mmio console whose port 0 is QEMU's
 * testdev chardev; writing "<code>q" to its transmit queue makes QEMU exit
 * with status (code << 1) | 1. Just enough virtio for one transmit queue.
 */
#include "libc.h"
#include "arch.h"
#include "atomic.h"
#include "arm64/setup.h"
#include "arm64/sysreg.h"
#include "arm64/virtio-mmio.h"
#include "wait.h"

#define VIRTIO_ID_CONSOLE		3
#define VIRTIO_CONFIG_S_ACKNOWLEDGE	1
#define VIRTIO_CONFIG_S_DRIVER		2
#define VIRTIO_CONFIG_S_DRIVER_OK	4
#define VIRTIO_CONFIG_S_FEATURES_OK	8
#define VIRTIO_F_VERSION_1_WORD_BIT	(1 << (32 - 32))	/* feature 32, in feature word 1 */
/* Queues of a console without MULTIPORT: 0 is port 0's receiveq, 1 its transmitq. */
#define VIRTIO_CONSOLE_PORT0_TXQ	1

#define VIRTIO_LEGACY_PAGE_SIZE		4096
#define VQ_SIZE				4
#define VQ_ALIGN			4096

struct vring_desc {
	u64 addr;
	u32 len;
	u16 flags;
	u16 next;
};

struct vring_avail {
	u16 flags;
	u16 idx;
	u16 ring[VQ_SIZE];
	u16 used_event;
};

struct vring_used {
	u16 flags;
	u16 idx;
	struct {
		u32 id;
		u32 len;
	} ring[VQ_SIZE];
	u16 avail_event;
};

/* The legacy split-ring layout: descriptors and avail ring, used ring on the next VQ_ALIGN. */
static struct {
	struct vring_desc desc[VQ_SIZE];
	struct vring_avail avail;
	u8 pad[VQ_ALIGN - sizeof(struct vring_desc[VQ_SIZE]) - sizeof(struct vring_avail)];
	struct vring_used used;
} vq __aligned(VQ_ALIGN);

static uintptr_t vbase;
static char exit_msg[16];

static bool setup_features(uintptr_t base, u32 version)
{
	if (version == VIRTIO_MMIO_VERSION_LEGACY) {
		writel(0, base + VIRTIO_MMIO_DRIVER_FEATURES_SEL);
		writel(0, base + VIRTIO_MMIO_DRIVER_FEATURES);
		writel(VIRTIO_LEGACY_PAGE_SIZE, base + VIRTIO_MMIO_GUEST_PAGE_SIZE);
		return true;
	}
	writel(1, base + VIRTIO_MMIO_DEVICE_FEATURES_SEL);
	if (!(readl(base + VIRTIO_MMIO_DEVICE_FEATURES) & VIRTIO_F_VERSION_1_WORD_BIT))
		return false;
	writel(1, base + VIRTIO_MMIO_DRIVER_FEATURES_SEL);
	writel(VIRTIO_F_VERSION_1_WORD_BIT, base + VIRTIO_MMIO_DRIVER_FEATURES);
	writel(0, base + VIRTIO_MMIO_DRIVER_FEATURES_SEL);
	writel(0, base + VIRTIO_MMIO_DRIVER_FEATURES);
	writel(VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER | VIRTIO_CONFIG_S_FEATURES_OK,
	       base + VIRTIO_MMIO_STATUS);
	return readl(base + VIRTIO_MMIO_STATUS) & VIRTIO_CONFIG_S_FEATURES_OK;
}

static bool setup_txq(uintptr_t base, u32 version)
{
	u64 desc = (u64)&vq.desc, avail = (u64)&vq.avail, used = (u64)&vq.used;

	writel(VIRTIO_CONSOLE_PORT0_TXQ, base + VIRTIO_MMIO_QUEUE_SEL);
	if (readl(base + VIRTIO_MMIO_QUEUE_NUM_MAX) < VQ_SIZE)
		return false;
	writel(VQ_SIZE, base + VIRTIO_MMIO_QUEUE_NUM);
	if (version == VIRTIO_MMIO_VERSION_LEGACY) {
		writel(VQ_ALIGN, base + VIRTIO_MMIO_QUEUE_ALIGN);
		writel((u32)(desc / VIRTIO_LEGACY_PAGE_SIZE), base + VIRTIO_MMIO_QUEUE_PFN);
		return true;
	}
	writel((u32)desc, base + VIRTIO_MMIO_QUEUE_DESC_LOW);
	writel((u32)(desc >> 32), base + VIRTIO_MMIO_QUEUE_DESC_HIGH);
	writel((u32)avail, base + VIRTIO_MMIO_QUEUE_DRIVER_LOW);
	writel((u32)(avail >> 32), base + VIRTIO_MMIO_QUEUE_DRIVER_HIGH);
	writel((u32)used, base + VIRTIO_MMIO_QUEUE_DEVICE_LOW);
	writel((u32)(used >> 32), base + VIRTIO_MMIO_QUEUE_DEVICE_HIGH);
	writel(1, base + VIRTIO_MMIO_QUEUE_READY);
	return true;
}

static bool probe(uintptr_t base)
{
	u32 version = readl(base + VIRTIO_MMIO_VERSION);

	if (readl(base + VIRTIO_MMIO_MAGIC_VALUE) != VIRTIO_MMIO_MAGIC ||
	    readl(base + VIRTIO_MMIO_DEVICE_ID) != VIRTIO_ID_CONSOLE ||
	    (version != VIRTIO_MMIO_VERSION_LEGACY && version != VIRTIO_MMIO_VERSION_MODERN))
		return false;
	writel(0, base + VIRTIO_MMIO_STATUS);	/* reset */
	writel(VIRTIO_CONFIG_S_ACKNOWLEDGE, base + VIRTIO_MMIO_STATUS);
	writel(VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER, base + VIRTIO_MMIO_STATUS);
	if (!setup_features(base, version) || !setup_txq(base, version)) {
		writel(0, base + VIRTIO_MMIO_STATUS);
		return false;
	}
	writel(readl(base + VIRTIO_MMIO_STATUS) | VIRTIO_CONFIG_S_DRIVER_OK,
	       base + VIRTIO_MMIO_STATUS);
	return true;
}

/* The first virtio-mmio console in the tree, if any, becomes the testdev. */
void virtio_testdev_init(void)
{
	int node;
	u64 base;

	for (node = dt_find_compatible(&boot_dt, -1, "virtio,mmio"); node >= 0;
	     node = dt_find_compatible(&boot_dt, node, "virtio,mmio")) {
		if (!dt_reg(&boot_dt, node, 0, &base, NULL) && probe(base)) {
			vbase = base;
			return;
		}
	}
}

bool virtio_testdev_present(void)
{
	return vbase != 0;
}

/* Send "<code>q"; returns only if there is no testdev or QEMU did not exit. */
/* The device has used the buffer put after used index *idx. */
static bool used_moved(void *idx)
{
	return READ_ONCE(vq.used.idx) != *(u16 *)idx;
}

void virtio_testdev_exit(int code)
{
	u16 idx;
	int len;

	if (!vbase)
		return;
	len = snprintf(exit_msg, sizeof(exit_msg), "%dq", code);
	vq.desc[0].addr = (u64)exit_msg;
	vq.desc[0].len = (u32)len;
	vq.desc[0].flags = 0;
	idx = vq.avail.idx;
	vq.avail.ring[idx % VQ_SIZE] = 0;
	smp_wmb();
	WRITE_ONCE(vq.avail.idx, (u16)(idx + 1));
	dsb(sy);
	writel(VIRTIO_CONSOLE_PORT0_TXQ, vbase + VIRTIO_MMIO_QUEUE_NOTIFY);
	/* QEMU exits while handling the notify; give a slow device a second. */
	wait_cond_ticks(used_moved, &idx, arch_counter_hz());
}
