/* SPDX-License-Identifier: GPL-2.0-only */
/* SMCCC: an HVC that may be undefined, and which hypervisor answers the vendor UID query. */
#include "arm64/processor.h"
#include "arm64/psci.h"
#include "arm64/smccc.h"
#include "arm64/sysreg.h"

struct hvc0_call {
	u32 fn;
	long ret;
};

static void call_hvc0(void *arg)
{
	struct hvc0_call *c = arg;

	c->ret = smccc_hvc0(c->fn);
}

bool smccc_try_hvc0(u32 fn, long *ret)
{
	struct hvc0_call c = { .fn = fn };

	if (catch_fault(ESR_EC_UNKNOWN, call_hvc0, &c, NULL))
		return false;
	*ret = c.ret;
	return true;
}

static void call_vendor_uid(void *ret)
{
	*(long *)ret = psci_call(SMCCC_VENDOR_HYP_CALL_UID, 0, 0, 0);
}

bool smccc_hyp_is_kvm(void)
{
	long ret = 0;

	if (psci_conduit() == PSCI_CONDUIT_NONE ||
	    catch_fault(ESR_EC_UNKNOWN, call_vendor_uid, &ret, NULL))
		return false;
	return (u32)ret == SMCCC_KVM_UID_W0;
}
