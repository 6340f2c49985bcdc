"""go tool pprof -raw's text, read back: read(path) gives the sample types,
[(values, location ids leaf first, label text)] and {location id: names}."""
import re


def read(path):
    types, samples, locs, sec, last = [], [], {}, None, None
    for line in open(path):
        line = line.rstrip("\n")
        if line in ("Samples:", "Locations", "Mappings"):
            sec, last = line, None
            continue
        if sec == "Samples:":
            if not types:
                types = [t.replace("[dflt]", "") for t in line.split()]
                continue
            m = re.match(r"^((?:\s+-?\d+)+): ((?:\d+ )*)$", line)
            if m:
                samples.append([[int(v) for v in m.group(1).split()],
                                [int(l) for l in m.group(2).split()], ""])
            elif line.startswith(" " * 16) and samples:
                samples[-1][2] += line.strip() + " "
        elif sec == "Locations":
            m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*)$", line)
            if m:
                last = int(m.group(1))
                locs[last] = []
                rest = m.group(2).strip()
            else:
                rest = line.strip()
            if rest:
                locs[last].append(rest.rsplit(" ", 2)[0])
    return types, samples, locs
