#!/usr/bin/env bash
# Creates the system account that the SOCKS5 tests authenticate as, if it is missing.
#
# dante's `socksmethod: username` checks passwords against system accounts (through
# /etc/shadow, which is why those tests need root). The account has no home, no login shell,
# and has expired: PAM-based logins (ssh, su, login) refuse it, while dante, which only
# compares the password hash, accepts it. The password is the one the tests use
# (ProxyProcess.socksUser in Tests/StreamTaskKitTests/ProxySupport.swift).
#
#   scripts/proxy-test-user.sh           # creates the account if it is missing
#   scripts/proxy-test-user.sh --remove  # deletes it again (scripts/test.sh does, at its end,
#                                        # when it was the one that created it)
set -euo pipefail

user=stkproxytest
password=stk-proxy-test

if [[ "${1:-}" == --remove ]]; then
    # Only root can have created it, and only root can delete it.
    if [[ "$(id -u)" -eq 0 ]] && id "$user" >/dev/null 2>&1; then
        userdel "$user"
        echo "proxy-test-user: removed the system account $user"
    fi
    exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
    echo "proxy-test-user: not root: skipping the account $user; the SOCKS5 password tests need root and will fail" >&2
    exit 0
fi

if ! id "$user" >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
    echo "proxy-test-user: created the system account $user"
fi
echo "$user:$password" | chpasswd
usermod --expiredate 1 "$user"
