#ifndef STREAMTASKKIT_DNSSD_QUIET_H
#define STREAMTASKKIT_DNSSD_QUIET_H

/// Whether AVAHI_COMPAT_NOWARN was set (by this library, before main, or by the user) when the
/// program started. Avahi's compatibility layer prints a warning to standard error on its
/// first call without it; on Darwin there is no such layer and this returns 1.
int stk_dnssd_quiet(void);

#endif
