#!/bin/sh
# Chromium as an unprivileged user, for a Cardshot that runs as root (docs/security.md).
#
# Playwright starts this file, as root, in place of Chromium: it is the leader of the browser's
# process group and its fds 3 and 4 are Playwright's pipes to the browser. It hands the profile
# directory Playwright made (root-owned, 0700) to the user, then becomes that user and execs
# Chromium: same pid, same group, same pipes, so Playwright, the memory guard and the group kill
# see the browser as if it had been started directly. Chromium then runs with its own sandbox.
#
# Arguments: Chromium's. Environment: CARDSHOT_CHROMIUM_EXEC (the browser), CARDSHOT_CHROMIUM_UID
# and CARDSHOT_CHROMIUM_GID (the user); the three are removed before Chromium starts.
set -eu
browser=${CARDSHOT_CHROMIUM_EXEC:?}
uid=${CARDSHOT_CHROMIUM_UID:?}
gid=${CARDSHOT_CHROMIUM_GID:?}
unset CARDSHOT_CHROMIUM_EXEC CARDSHOT_CHROMIUM_UID CARDSHOT_CHROMIUM_GID
case $uid in '' | 0 | *[!0-9]*) echo "chromium-as-user: refusing uid '$uid'" >&2; exit 64 ;; esac
case $gid in '' | 0 | *[!0-9]*) echo "chromium-as-user: refusing gid '$gid'" >&2; exit 64 ;; esac
for arg in "$@"; do
  case $arg in
    --user-data-dir=*) chown -R -- "$uid:$gid" "${arg#--user-data-dir=}" ;;
  esac
done
# The service's working directory may be closed to the user.
cd /
exec /usr/bin/setpriv --reuid="$uid" --regid="$gid" --clear-groups --no-new-privs -- "$browser" "$@"
