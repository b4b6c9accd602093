#!/usr/bin/env bash
# Applies the porting rule to Darwin Swift sources, in place:
#
#   scripts/port-from-darwin.sh FILE…
#
# 1. every type name that begins with URLSession gets StreamSession instead
#    (\bURLSession([A-Za-z]*)\b → StreamSession\1): URLSession, URLSessionStreamTask,
#    URLSessionConfiguration, URLSessionStreamDelegate, URLSession.ResponseDisposition…;
# 2. `import StreamTaskKit` goes after `import Foundation` (and `import StreamTaskDNSSD` too
#    when the file uses NetService or NetServiceBrowser), unless the file has it already;
# 3. a name qualified with Foundation's module that Foundation on Linux lacks names the module
#    that has it: Foundation.URLSession… → StreamTaskKit.StreamSession…, Foundation.NetService…
#    → StreamTaskDNSSD.NetService… (code that declares a type of the same name spells it so).
#
# Nothing else changes: method names (urlSession(_:…), readData(ofMinLength:…)), NetService,
# URLError and NSURLError… codes stay as they are. Running it twice changes nothing more.
# See the "Porting from URLSession and NetService" article for what still differs.
set -euo pipefail
if [ $# -eq 0 ]; then
    echo "usage: scripts/port-from-darwin.sh FILE…" >&2
    exit 2
fi
for file in "$@"; do
    if [ ! -f "$file" ]; then
        echo "port-from-darwin.sh: no such file: $file" >&2
        exit 1
    fi
    perl -0pi -e '
        s/\bFoundation\.URLSession([A-Za-z]*)\b/StreamTaskKit.StreamSession$1/g;
        s/\bFoundation\.(NetService[A-Za-z]*)\b/StreamTaskDNSSD.$1/g;
        s/\bURLSession([A-Za-z]*)\b/StreamSession$1/g;
        my $imports = "";
        $imports .= "import StreamTaskKit\n" unless /^import StreamTaskKit\b/m;
        $imports .= "import StreamTaskDNSSD\n"
            if /\bNetService(Browser)?\b/ && !/^import StreamTaskDNSSD\b/m;
        if ($imports ne "") {
            s/^(import Foundation[^\n]*\n)/$1$imports/m
                or $_ = $imports . $_;
        }
    ' "$file"
done
