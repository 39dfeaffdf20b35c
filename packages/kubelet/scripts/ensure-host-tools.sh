#!/usr/bin/env bash
# Installs what the test kubelet drives on the host when the machine lacks it, from Debian's packages:
# ip (iproute2: network namespaces, veths, the bridge) and unshare/setpriv (util-linux: a private mount
# namespace per container, its user and capabilities). kubectl and podman have their own scripts.
set -euo pipefail
missing=()
command -v ip >/dev/null || missing+=(iproute2)
{ command -v unshare >/dev/null && command -v setpriv >/dev/null; } || missing+=(util-linux)
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update && apt-get install -y "${missing[@]}"
fi
command -v ip unshare setpriv
