#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's browser tests when it is missing (CI, fresh machines).
set -euo pipefail
command -v chromium >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)
