#!/bin/bash
# Three fresh-clone CI runs in a row, each while another build of the project (cmake --build -j1) loads the machine.
cd /work/main
for i in 1 2 3; do
  rm -rf /tmp/ci /tmp/load$i
  git clone -q /work/main /tmp/load$i
  cmake -S /tmp/load$i -B /tmp/load$i/build -DCMAKE_BUILD_TYPE=Release > /tmp/cilogs/load$i-config.log 2>&1
  (cmake --build /tmp/load$i/build -j1 > /tmp/cilogs/load$i.log 2>&1; echo "load$i build rc=$? at $(date -u +%T)" >> /tmp/cilogs/load$i.log) &
  loadpid=$!
  sleep 20
  git clone -q /work/main /tmp/ci
  start=$(date +%s)
  (cd /tmp/ci && echo "commit $(git rev-parse --short HEAD), $(date -u +%FT%TZ), beside cmake --build /tmp/load$i/build -j1" && CI=true bash .ci/run) > /tmp/cilogs/ci$i.log 2>&1
  rc=$?
  echo "ci$i rc=$rc in $(( $(date +%s) - start )) s; load still running: $(kill -0 $loadpid 2>/dev/null && echo yes || echo no)" | tee -a /tmp/cilogs/ci$i.log >> /tmp/cilogs/summary.txt
  kill $loadpid 2>/dev/null; pkill -f "/tmp/load$i/build" 2>/dev/null; wait $loadpid 2>/dev/null
  rm -rf /tmp/load$i
done
echo all-done >> /tmp/cilogs/summary.txt
