#ifndef STREAMTASKKIT_DNSSD_QUIET_H
#define STREAMTASKKIT_DNSSD_QUIET_H

/// What the load-time code did about AVAHI_COMPAT_NOWARN, without which Avahi's compatibility
/// layer prints a warning to standard error on its first call: 1 it set the variable, 2 the
/// user had set it, 3 there is no such layer (Darwin), 0 it did not run or could not set it.
int stk_dnssd_quiet(void);

#endif
