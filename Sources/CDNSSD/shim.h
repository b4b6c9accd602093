// The DNS-SD C API: on Linux from Avahi's compatibility library (libavahi-compat-libdnssd-dev,
// which installs dns_sd.h and libdns_sd), on Darwin from the system.
#ifndef STREAMTASKKIT_CDNSSD_SHIM_H
#define STREAMTASKKIT_CDNSSD_SHIM_H

// 'dns_sd.h' file not found? On Debian/Ubuntu: sudo apt-get install libavahi-compat-libdnssd-dev
#include <dns_sd.h>

#endif
