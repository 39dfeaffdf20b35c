#!/usr/bin/env bash
# Installs kubectl from Debian's kubernetes-client package when the machine has none
# (the sandbox's end-to-end tests drive the real kubectl binary).
set -euo pipefail
command -v kubectl || (apt-get update && apt-get install -y kubernetes-client)
