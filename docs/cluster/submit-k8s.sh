#!/bin/bash
# Runs the sharded colophon Job and then its merge: waits for the Indexed
# Job to complete (or fail), then applies the merge Job and prints its log.
set -euo pipefail
here=$(dirname "$0")
kubectl apply -f "$here/colophon-indexed-job.yaml"
# Complete or failed, whichever comes first (a failed index is named by
# the merge, which then refuses to merge half a library).
kubectl wait --for=condition=complete --timeout=48h job/colophon-shards &
ok=$!
kubectl wait --for=condition=failed --timeout=48h job/colophon-shards &
failed=$!
wait -n "$ok" "$failed" || true
kill "$ok" "$failed" 2>/dev/null || true
kubectl apply -f "$here/colophon-merge-job.yaml"
kubectl wait --for=condition=complete --timeout=6h job/colophon-merge || true
kubectl logs job/colophon-merge
