for i in $(seq 60); do ls /usr/bin >/dev/null; cat /etc/hostname >/dev/null; done
python3 rename.py
EOF'''
assert a in s
s=s.replace(a,b)
open(p,'w').write(s)
