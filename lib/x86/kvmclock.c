// SPDX-License-Identifier: GPL-2.0-only
/* The kvmclock driver: detection from KVM's CPUID leaves, one registered pvclock area per vCPU, and the three ways to read it. */
#include "x86/kvmclock.h"
#include "alloc.h"
#include "arch.h"
#include "atomic.h"
#include "x86/desc.h"
#include "x86/hypervisor.h"
#include "x86/percpu.h"
#include "x86/processor.h"
#include "report.h"
#include "wait.h"
#include "units.h"

#define CACHE_LINE_SIZE		64
/* How long init waits for the host's first update of an area, in TSC cycles. */
#define FIRST_UPDATE_WAIT	(1000ull * 1000 * 1000)

/*
 * What the host writes for one vCPU, alone on its cache line: another
 * vCPU's updates or reads never invalidate it. KVM also refuses an area
 * that crosses a page, which the alignment rules out.
 */
struct kvmclock_area {
	struct pvclock_vcpu_time_info ti;
	struct pvclock_wall_clock wc;
} __aligned(CACHE_LINE_SIZE);
static_assert(sizeof(struct kvmclock_area) == CACHE_LINE_SIZE, "one area per cache line");

static struct kvmclock_area *areas;
static bool stable_bit_valid;
/* The latest value any forced-adjusted read returned; its own line, as every vCPU writes it. */
static struct {
	pvclock_last_t value;
} __aligned(CACHE_LINE_SIZE) last;

u32 kvmclock_kvm_features(void)
{
	u32 base = kvm_cpuid_base();

	return base ? cpuid(base + KVM_CPUID_FEATURES_OFFSET).a : 0;
}

const char *kvmclock_unavailable(void)
{
	static char reason[128];
	u32 features;
	char sig[13];

	if (!kvm_cpuid_base()) {
		hypervisor_signature(sig);
		snprintf(reason, sizeof(reason), "not running on KVM (hypervisor signature '%s')",
			 sig[0] ? sig : "none");
		return reason;
	}
	features = kvmclock_kvm_features();
	if (features & BIT(KVM_FEATURE_CLOCKSOURCE2))
		return NULL;
	snprintf(reason, sizeof(reason),
		 "KVM offers no kvmclock: KVM_FEATURE_CLOCKSOURCE2 clear in CPUID %#x EAX %#x%s",
		 kvm_cpuid_base() + KVM_CPUID_FEATURES_OFFSET, features,
		 features & BIT(KVM_FEATURE_CLOCKSOURCE) ? " (only the legacy MSRs)" : "");
	return reason;
}

static struct kvmclock_area *this_area(void)
{
	return this_cpu()->kvmclock;
}

static bool time_info_written(void *ti)
{
	return READ_ONCE(((struct pvclock_vcpu_time_info *)ti)->version) != 0;
}

/* KVM fills the area before it next enters the guest; be patient with other hosts. Whether it did. */
static bool wait_first_update(struct pvclock_vcpu_time_info *ti)
{
	return wait_cond_ticks(time_info_written, ti, FIRST_UPDATE_WAIT);
}

static void register_this_cpu(void *failed)
{
	struct kvmclock_area *a = &areas[smp_id()];

	/* identity-mapped: the virtual address is the guest-physical one */
	if (wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, (uintptr_t)&a->ti | KVM_SYSTEM_TIME_ENABLE) != EXC_NONE) {
		printf("kvmclock: vCPU %d: wrmsr MSR_KVM_SYSTEM_TIME_NEW faulted\n", smp_id());
		atomic_inc((u32 *)failed);
		return;
	}
	if (!wait_first_update(&a->ti)) {
		printf("kvmclock: vCPU %d: the host never wrote the time info\n", smp_id());
		atomic_inc((u32 *)failed);
	}
	this_cpu()->kvmclock = a;
}

int kvmclock_init(void)
{
	u32 failed = 0;

	if (kvmclock_unavailable())
		return -1;
	stable_bit_valid = kvmclock_kvm_features() & BIT(KVM_FEATURE_CLOCKSOURCE_STABLE_BIT);
	if (!areas)
		areas = memalign(CACHE_LINE_SIZE, sizeof(*areas) * (size_t)cpu_count());
	kvmclock_reset_last();
	on_cpus(register_this_cpu, &failed);
	return failed ? -1 : 0;
}

static void unregister_this_cpu(void *unused)
{
	if (!this_area())
		return;
	wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, 0);
	this_cpu()->kvmclock = NULL;
}

void kvmclock_exit(void)
{
	if (areas)
		on_cpus(unregister_this_cpu, NULL);
}

/* The counter pvclock_read() samples: lfence on both sides keeps it inside the version window. */
static u64 tsc_ordered(void)
{
	return rdtsc_ordered();
}

static u64 read_area(const struct pvclock_vcpu_time_info *ti, u8 *flags)
{
	struct pvclock_vcpu_time_info copy;
	u64 now = pvclock_read(ti, tsc_ordered, &copy);

	*flags = copy.flags;
	return now;
}

u64 kvmclock_read_raw(void)
{
	u8 flags;

	return read_area(&this_area()->ti, &flags);
}

void kvmclock_reset_last(void)
{
	pvclock_last_reset(&last.value);
}

/* Never return less than any vCPU returned before: the shared cache line is the price. */
static u64 clamp_to_last(u64 now)
{
	return pvclock_clamp(&last.value, now);
}

u64 kvmclock_read_adjusted(void)
{
	return clamp_to_last(kvmclock_read_raw());
}

u64 kvmclock_read_stable_aware(void)
{
	u8 flags;
	u64 now = read_area(&this_area()->ti, &flags);

	/* the flag only counts when CPUID says the host sets it deliberately */
	if (stable_bit_valid && (flags & PVCLOCK_TSC_STABLE_BIT))
		return now;
	return clamp_to_last(now);
}

u64 kvmclock_read(enum kvmclock_mode mode)
{
	switch (mode) {
	case KVMCLOCK_RAW:
		return kvmclock_read_raw();
	case KVMCLOCK_STABLE_AWARE:
		return kvmclock_read_stable_aware();
	case KVMCLOCK_ADJUSTED:
		return kvmclock_read_adjusted();
	}
	return 0;
}

bool kvmclock_take_guest_stopped(void)
{
	u8 *flags = &this_area()->ti.flags;

	if (!(READ_ONCE(*flags) & PVCLOCK_GUEST_STOPPED))
		return false;
	/*
	 * The host writes this area only while the vCPU is out of the guest:
	 * one locked instruction clears the bit between two of its updates,
	 * and an update it makes keeps the bit as the guest left it.
	 */
	__atomic_fetch_and(flags, (u8)~PVCLOCK_GUEST_STOPPED, __ATOMIC_SEQ_CST);
	return true;
}

void kvmclock_set_guest_stopped(void)
{
	__atomic_fetch_or(&this_area()->ti.flags, (u8)PVCLOCK_GUEST_STOPPED, __ATOMIC_SEQ_CST);
}

bool kvmclock_host_stable(void)
{
	if (!stable_bit_valid)
		return false;
	for (int i = 0; i < cpu_count(); i++)
		if (!(READ_ONCE(areas[i].ti.flags) & PVCLOCK_TSC_STABLE_BIT))
			return false;
	return true;
}

void kvmclock_snapshot(struct pvclock_vcpu_time_info *out)
{
	pvclock_read(&this_area()->ti, tsc_ordered, out);
}

u64 kvmclock_tsc_hz(void)
{
	static struct kvmclock_area scratch;
	struct pvclock_vcpu_time_info copy;
	bool temporary = !this_area();

	if (kvmclock_unavailable())
		return 0;
	/* no area yet: register one on this vCPU just long enough to read it */
	if (temporary) {
		memset(&scratch, 0, sizeof(scratch));
		if (wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, (uintptr_t)&scratch.ti | KVM_SYSTEM_TIME_ENABLE) !=
		    EXC_NONE)
			return 0;
		wait_first_update(&scratch.ti);
		this_cpu()->kvmclock = &scratch;
	}
	kvmclock_snapshot(&copy);
	if (temporary) {
		wrmsr_safe(MSR_KVM_SYSTEM_TIME_NEW, 0);
		this_cpu()->kvmclock = NULL;
	}
	return copy.version ? pvclock_tsc_khz(copy.tsc_to_system_mul, copy.tsc_shift) * HZ_PER_KHZ
			    : 0;
}

u64 kvmclock_boot_wall_ns(void)
{
	struct pvclock_wall_clock *wc = &this_area()->wc, copy;

	/* KVM writes the boot time of day into wc when the MSR is written, under the same protocol */
	wrmsr(MSR_KVM_WALL_CLOCK_NEW, (uintptr_t)wc);
	pvclock_read_wall(wc, &copy);
	return pvclock_wall_ns(&copy, 0);
}

u64 kvmclock_wall_ns(void)
{
	return kvmclock_boot_wall_ns() + kvmclock_read_raw();
}

static void snapshot_on(void *out)
{
	kvmclock_snapshot(&((struct pvclock_vcpu_time_info *)out)[smp_id()]);
}

static bool same_params(const struct pvclock_vcpu_time_info *a, const struct pvclock_vcpu_time_info *b)
{
	return a->flags == b->flags && a->tsc_to_system_mul == b->tsc_to_system_mul &&
	       a->tsc_shift == b->tsc_shift;
}

void kvmclock_print_params(void)
{
	struct pvclock_vcpu_time_info *ti = calloc((size_t)cpu_count(), sizeof(*ti));
	u32 f = kvmclock_kvm_features();
	int differ = 0;

	report_info("KVM features %#x: clocksource2 %s, stable bit %s", f,
		    f & BIT(KVM_FEATURE_CLOCKSOURCE2) ? "yes" : "no",
		    f & BIT(KVM_FEATURE_CLOCKSOURCE_STABLE_BIT) ? "yes" : "no");
	on_cpus(snapshot_on, ti);
	/* vCPU 0, then only the vCPUs that differ from it: 255 equal lines would hide the odd one */
	for (int i = 0; i < cpu_count(); i++) {
		if (i && same_params(&ti[i], &ti[0]))
			continue;
		differ += i != 0;
		report_info("vcpu %d pvclock: flags %#x (TSC stable %s), mul %#x, shift %d (TSC %llu kHz)", i,
			    ti[i].flags, ti[i].flags & PVCLOCK_TSC_STABLE_BIT ? "yes" : "no",
			    ti[i].tsc_to_system_mul, ti[i].tsc_shift,
			    pvclock_tsc_khz(ti[i].tsc_to_system_mul, ti[i].tsc_shift));
	}
	if (cpu_count() > 1 && !differ)
		report_info("all %d vCPUs have the same pvclock parameters", cpu_count());
	report_info("host promises a stable clock: %s", kvmclock_host_stable() ? "yes" : "no");
}
