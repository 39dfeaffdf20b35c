#!/usr/bin/env bash
# Installs Prometheus (the server and promtool) from Debian's `prometheus` package when either is
# missing: the monitoring tests check the chart's alert rules with `promtool check rules` /
# `promtool test rules` and scrape the running controllers with a real Prometheus.
# Only the binaries are used: the package's own service is stopped and disabled when it started one.
set -euo pipefail
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
  if command -v systemctl >/dev/null && systemctl is-active --quiet prometheus 2>/dev/null; then
    systemctl disable --now prometheus || true
  fi
fi
command -v promtool
