#!/usr/bin/env bash
# The benchmark in one command (issue 25): `scripts/benchmark.sh --quick DIR` runs every deck of
# experiments/benchmark/ with its '# quick:' overrides and writes the scoreboard. Checked: it
# exits 0 and states its running time; every deck gave its file; the work-precision runs obey the
# repetition rule (>= timing.min_repeats, min <= median <= max) and carry a certified reference;
# every cell of the scoreboard is recomputed here from the HDF5 files by an independent reading of
# the rule (the cheapest measured run whose resolved relative error is at most the level) and must
# agree; the LaTeX compiles in a minimal article without an overfull box; the whole report is
# under 20 MB; and the HTML report, opened in a real headless browser (Debian chromium) from the
# file system, has no broken image, no broken link and no console message, and reaches every
# problem's page from the index.
source "$(dirname "${BASH_SOURCE[0]}")/lib_studies.bash"
command -v chromium >/dev/null || { bad "no chromium (scripts/setup.sh installs it)"; finish; }

out=$(LIEBENCH_BIN="$LB" bash "$SRC/scripts/benchmark.sh" --quick "$W/bq" 2>&1); st=$?
[[ $st -eq 0 ]] && ok "benchmark.sh --quick exits 0" || bad "benchmark.sh --quick: exit $st: $(tail -5 <<<"$out")"
grep -q "^benchmark: [0-9]* decks in [0-9]* min [0-9]* s (quick mode)" <<<"$out" && ok "states its running time" \
  || bad "no running time line: $(tail -2 <<<"$out")"
R="$W/bq/benchmark"
missing=""
for cfg in "$SRC"/experiments/benchmark/*.cfg; do
  [[ -f "$W/bq/benchmark_$(basename "$cfg" .cfg).h5" ]] || missing+=" $(basename "$cfg")"
done
[[ -z "$missing" ]] && ok "every benchmark deck wrote its file" || bad "decks without a file:$missing"

# the scoreboard recomputed from the files (an independent reading of scripts/scoreboard.py's rule)
msg=$(/usr/bin/python3 - "$W/bq" "$R/scoreboard.csv" <<'PY'
import csv, glob, os, sys
import h5py, numpy as np
results, board = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(board)))
bad, n_cells, problems = [], 0, 0
for path in sorted(glob.glob(os.path.join(results, "benchmark_wp_*.h5"))):
    problems += 1
    stem = os.path.basename(path)[len("benchmark_wp_"):-3]
    s = h5py.File(path, "r")["summary"]
    st = [x.decode() for x in s["status"][()]]
    meth = [x.decode() for x in s["method"][()]]
    rel = s["error"][()] / s["error_scale"][()]
    floor = 10 * s["reference_error"][()] / s["error_scale"][()]
    ev, wmin = s["rhs_evaluations"][()], s["wall_min"][()]
    if not np.all(s["repeats"][()] >= 1) or not np.all(s["wall_min"][()] <= s["wall_median"][()]) \
            or not np.all(s["wall_median"][()] <= s["wall_max"][()]):
        bad.append(f"{stem}: repetition statistics out of order")
    if "reference_certified" not in s and not np.all(s["reference_error"][()] == 0):
        bad.append(f"{stem}: reference not certified")
    for lv in (1e-3, 1e-6, 1e-9, 1e-12):
        for crit, cost in (("evaluations", ev), ("time", wmin)):
            cands = []
            for i in range(len(st)):
                got = rel[i] if st[i] == "ok" else floor[i] if "does not resolve" in st[i] else None
                if got is not None and got <= lv and not (crit == "evaluations" and ev[i] == 0):
                    cands.append(i)
            mine = [r for r in rows if r["problem"] == stem and float(r["level"]) == lv and r["criterion"] == crit]
            if len(mine) != 1:
                bad.append(f"{stem} {lv} {crit}: {len(mine)} rows"); continue
            r = mine[0]; n_cells += 1
            if lv < floor.min():
                if r["result"] != "beyond the reference": bad.append(f"{stem} {lv}: {r['result']}, expected beyond the reference")
            elif not cands:
                if r["result"] != "not reached": bad.append(f"{stem} {lv} {crit}: {r['result']}, expected not reached")
            else:
                best = min(cost[i] for i in cands)
                winners = {meth[i] for i in cands if cost[i] == best}
                if r["method"] not in winners: bad.append(f"{stem} {lv} {crit}: {r['method']}, expected one of {winners}")
print(f"{problems} problems, {n_cells} cells" if not bad and n_cells else "; ".join(bad[:5]) or "no cells")
sys.exit(1 if bad or not n_cells else 0)
PY
) && ok "scoreboard recomputed from the files: $msg" || bad "scoreboard: $msg"

# every applicable method of a problem is on its page
pages_ok=$(/usr/bin/python3 - "$W/bq" "$R" <<'PY'
import glob, os, sys, h5py
bad = []
for path in glob.glob(os.path.join(sys.argv[1], "benchmark_wp_*.h5")):
    stem = os.path.basename(path)[len("benchmark_wp_"):-3]
    page = open(os.path.join(sys.argv[2], stem + ".html")).read()
    for m in {x.decode() for x in h5py.File(path, "r")["summary/method"][()]}:
        if f"<td>{m}" not in page: bad.append(f"{stem}: {m}")
print("; ".join(bad) or "all")
PY
)
[[ "$pages_ok" == all ]] && ok "every method of every work-precision file has its row on the problem's page" || bad "missing rows: $pages_ok"

# LaTeX: compiles in a minimal article, nothing overfull
d=$(mktemp -d "$W/doc.XXXX"); cp "$R/scoreboard.tex" "$d/t.tex"
printf '\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\input{t}\n\\end{document}\n' > "$d/doc.tex"
if command -v pdflatex >/dev/null; then
  (cd "$d" && pdflatex -interaction=nonstopmode -halt-on-error doc.tex >/dev/null 2>&1); st=$?
  if [[ $st -ne 0 ]]; then bad "scoreboard.tex: pdflatex failed: $(grep -m2 -A2 '^!' "$d/doc.log")"
  elif grep -q 'Overfull \\hbox' "$d/doc.log"; then bad "scoreboard.tex: $(grep -m1 'Overfull \\hbox' "$d/doc.log")"
  else ok "scoreboard.tex compiles, nothing overfull"; fi
else bad "no pdflatex (scripts/setup.sh installs it)"; fi

size=$(du -sk "$R" | cut -f1)
[[ $size -lt 20480 ]] && ok "report size ${size} KiB < 20 MiB" || bad "report is ${size} KiB"

# the report in a real browser: a harness page visits every page reachable from index.html in an
# iframe (file://, no server) and lists broken images, links and pages; console messages of the
# report's pages (it has no scripts: any message is an error) come from chromium's log
cat > "$W/harness.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><title>harness</title></head><body><pre id="result">running</pre>
<script>
const root = new URL(location.hash.slice(1));
const todo = [new URL("index.html", root).href], seen = new Set(todo), out = [];
function next() {
  if (!todo.length) { document.getElementById("result").textContent = "DONE\n" + out.join("\n"); return; }
  const url = todo.shift();
  const f = document.createElement("iframe");
  f.onload = () => {
    const d = f.contentDocument;
    if (!d || !d.body || !d.title) { out.push("BROKEN_PAGE " + url); f.remove(); next(); return; }
    out.push("PAGE " + url);
    for (const img of d.images) if (!img.complete || img.naturalWidth === 0) out.push("BROKEN_IMAGE " + img.src + " IN " + url);
    for (const a of d.querySelectorAll("a[href]")) {
      out.push("LINK " + a.href);
      if (a.href.endsWith(".html") && !seen.has(a.href)) { seen.add(a.href); todo.push(a.href); }
    }
    f.remove(); next();
  };
  f.src = url; document.body.appendChild(f);
}
next();
</script></body></html>
HTML
timeout 120 chromium --headless=new --disable-gpu --no-sandbox --allow-file-access-from-files --enable-logging=stderr \
  --v=0 --virtual-time-budget=30000 --user-data-dir="$W/chromium-profile" --dump-dom \
  "file://$W/harness.html#file://$R/" > dom.txt 2> chromium.log
st=$?
[[ $st -eq 0 ]] && grep -q "DONE" dom.txt && ok "headless chromium visited the report" || bad "chromium: exit $st: $(grep -v dbus chromium.log | tail -3)"
n_pages=$(grep -c "^PAGE " dom.txt); n_problems=$(ls "$W"/bq/benchmark_*.h5 | sed 's/.*benchmark_[a-z]*_//' | sort -u | wc -l)
[[ $n_pages -eq $((n_problems + 1)) ]] && ok "index and all $n_problems problem pages reached by links" \
  || bad "$n_pages pages reached, expected $((n_problems + 1))"
grep -E "^BROKEN_(PAGE|IMAGE)" dom.txt > broken.txt
[[ ! -s broken.txt ]] && ok "no broken page or image ($(grep -c '<img' "$R"/*.html | awk -F: '{s += $2} END {print s}') images)" \
  || bad "broken: $(head -3 broken.txt)"
dead=""
for u in $(sed -n 's/^LINK file:\/\///p' dom.txt | sed 's/<\/pre>.*//; s/#.*//' | sort -u); do [[ -e "$u" ]] || dead+=" $u"; done
[[ -z "$dead" ]] && ok "every link resolves to a file ($(grep -c '^LINK' dom.txt) links)" || bad "dead links:$dead"
grep -q "^LINK http" dom.txt && bad "links out of the report: $(grep -m1 '^LINK http' dom.txt)"
console=$(grep "CONSOLE" chromium.log | grep -v "harness.html")
[[ -z "$console" ]] && ok "no console message from the report's pages" || bad "console: $(head -2 <<<"$console")"
finish
