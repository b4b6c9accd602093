#include "dnssd_quiet.h"

#include <stdlib.h>

// Avahi's compatibility layer (avahi-compat-libdns_sd) warns on standard error at its first
// call unless AVAHI_COMPAT_NOWARN is set, and a library must not print. setenv races with any
// other thread's getenv, so it runs here, as the program loads, before any thread but the main
// one exists; a value the user set is left alone.

#if defined(__linux__)
static int quiet = 0;

__attribute__((constructor)) static void stk_dnssd_silence_compatibility_warning(void) {
    if (getenv("AVAHI_COMPAT_NOWARN") != NULL) {
        quiet = 2;
    } else if (setenv("AVAHI_COMPAT_NOWARN", "1", 0) == 0) {
        quiet = 1;
    }
}

int stk_dnssd_quiet(void) { return quiet; }
#else
int stk_dnssd_quiet(void) { return 3; }
#endif
