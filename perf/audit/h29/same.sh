#!/bin/bash
# same.sh A B: every file of two runs equal but pid:/cmd:
cd /tmp/a29/out
for f in $(cd $1 && ls); do
  [ "$f" = stderr ] && continue
  if ! diff -q <(grep -v '^pid:\|^cmd:\|^desc: Time' $1/$f | sed 's/==[0-9]*==//') <(grep -v '^pid:\|^cmd:\|^desc: Time' $2/$f| sed 's/==[0-9]*==//') >/dev/null; then echo "DIFF $f"; fi
done
[ "$(ls $1)" = "$(ls $2)" ] || echo "DIFF file lists: $(ls $1) / $(ls $2)"
echo "compared $1 $2"
