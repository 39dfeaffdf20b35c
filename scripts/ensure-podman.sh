#!/usr/bin/env bash
# Installs the container tools the image build (`npm run image`) and its e2e test use, from Debian's
# packages, only when they are missing: buildah (builds the Containerfile), podman + runc (runs the
# image), skopeo (exports the OCI archive), containerd (its `ctr` checks that the archive imports the
# way kind and k3s import it) and binutils (`strip` for the Node binary).
# The tools run with the project's configuration (image/containers.conf, image/storage.conf), never /etc's.
set -euo pipefail
missing=()
for pair in buildah:buildah podman:podman runc:runc skopeo:skopeo ctr:containerd containerd:containerd strip:binutils; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  mapfile -t packages < <(printf '%s\n' "${missing[@]}" | sort -u)
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}"
fi
