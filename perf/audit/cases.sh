# Sourced by bad.sh and bad2.sh: run_cases REGEX runs every line of stdin
# as the options of one run of callgrind-bd on `touch /tmp/a27/ran`
# (lines matching REGEX as user nobody: root may write anywhere), and
# prints the options, the exit status, how many lines the tool printed
# (Valgrind's host-cache warnings left out), whether the client ran, and
# those lines.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export VALGRIND_LIB=${VALGRIND_LIB:-$top/vglib}
noise='Use --help for more information|warning: (L3 cache found|specified LL cache|simulated LL cache)'

run() {
  rm -f ran
  timeout 60 $PRE valgrind --tool=callgrind-bd -q --I1=32768,8,64 --D1=32768,8,64 \
     --LL=4194304,16,64 "$@" /usr/bin/touch /tmp/a27/ran > out.txt 2>&1
  rc=$?
  n=$(grep -vEc "$noise" out.txt)
  r=no; [ -e ran ] && r=YES
  printf '%s | rc=%s lines=%s clientran=%s | %s\n' "$*" "$rc" "$n" "$r" \
     "$(grep -vE "$noise" out.txt | tr '\n' '~' | cut -c1-220)"
}

run_cases() {
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    PRE=; if echo "$line" | grep -qE "$1"; then
      PRE="setpriv --reuid=65534 --regid=65534 --clear-groups"; fi
    eval "run $line"
  done
}
