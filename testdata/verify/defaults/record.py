"""Records the server's verdict on the defaults corpus: testdata/verify/defaults/{rejected,accepted}/*.yaml.

For every file, the CRD below the header comments (as kubectl parses it,
`kubectl create --dry-run=client -o json`) is POSTed to the kube-apiserver of the current
kubeconfig (`kubectl create --raw`, `fieldValidation=Strict`, `dryRun=All`, so nothing is created
and nothing needs deleting), and the `# server:` and `# cause:` header lines are rewritten from the
answer: `accepted` on success, else `rejected` and one `# cause: <field>: <message>` per entry of the
Status' `details.causes`, in the server's order, the message cut at its first newline. The `# case:`
line and the CRD itself are kept as they are. The verdict is cross-checked with
`kubectl create --validate=strict --dry-run=server -f FILE`.

If another client of the server holds a CRD named widgets.example.com, a dry-run create answers
AlreadyExists (which it only reaches once validation passed); the CRD is then asked again with its
group renamed to `rop-record-<pid>.example.com`, which changes nothing in the checks of schemas
and defaults.

Besides the header lines, the script reports (and exits 1 on): a verdict that differs from the
directory (`rejected/` or `accepted/`), a cause whose field is not at or below a `default`, a file
without its twin, a file whose first line is not `# case:`, YAML that PyYAML (YAML 1.1) reads
differently from kubectl (e.g. an unquoted `n` or `y` key), and with --runs, answers that differ
between runs.

Usage (needs kubectl, PyYAML and KUBECONFIG pointing at a kube-apiserver v1.37.2):

    python3 testdata/verify/defaults/record.py [--check] [--runs N] [FILE...]

--check   only compare the server's answer with the header lines and report differences (exit 1);
--runs N  ask the server N times per file (default 1) and fail if the answers differ, ignoring
          the random number in `selfType<N>` names.
Without FILE arguments, every file of rejected/ and accepted/ next to this script is processed.
"""
import argparse, json, os, re, subprocess, sys, tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
URL = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldValidation=Strict&dryRun=All"


def split(text):
    """(header lines, body text) of a corpus file: the header is the leading `#` lines."""
    lines = text.splitlines(keepends=True)
    n = 0
    while n < len(lines) and lines[n].startswith("#"):
        n += 1
    return [l.rstrip("\n") for l in lines[:n]], "".join(lines[n:])


def response_body(log):
    """The JSON of the `"Response Body" body=<` entry of kubectl's -v=10 log."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if '"Response Body"' in line and line.rstrip().endswith("body=<"):
            body = []
            for l in lines[i + 1:]:
                if l.strip() == ">":
                    break
                body.append(l[1:] if l.startswith("\t") else l)
            return json.loads("\n".join(body))
    raise RuntimeError("no response body in kubectl's log:\n" + log[-2000:])


def post(crd):
    """(kubectl's exit code, the server's answer) for a dry-run POST of the CRD object."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(crd, f)
        tmp = f.name
    try:
        p = subprocess.run(["kubectl", "create", "--raw", URL, "-f", tmp, "-v=10"],
                           capture_output=True, text=True)
        # on success kubectl prints the created object, on failure only the error (the Status
        # JSON is in its -v=10 log)
        answer = json.loads(p.stdout) if p.returncode == 0 else response_body(p.stderr)
        # the verdict of plain `kubectl create` must agree
        k = subprocess.run(["kubectl", "create", "--validate=strict", "--dry-run=server", "-f", tmp],
                           capture_output=True, text=True)
    finally:
        os.unlink(tmp)
    return p.returncode, answer, k


def renamed(crd):
    """The CRD in a group of its own, for when another client holds widgets.example.com: a dry-run
    create of an existing name answers AlreadyExists (after validation, so it would only mean
    accepted). Names and groups play no part in the checks of schemas and defaults."""
    crd = json.loads(json.dumps(crd))
    group = f"rop-record-{os.getpid()}.{crd['spec']['group']}"
    crd["spec"]["group"] = group
    crd["metadata"]["name"] = f"{crd['spec']['names']['plural']}.{group}"
    return crd


def ask(path, body):
    """(verdict, [cause lines]) of the server for the CRD in body."""
    # the object as kubectl reads the YAML (YAML 1.2-ish, so `1.0e300` is a number, `no` a string)
    k = subprocess.run(["kubectl", "create", "--dry-run=client", "-o", "json", "-f", "-"],
                       input=body, capture_output=True, text=True)
    if k.returncode != 0:
        raise RuntimeError(f"{path}: kubectl cannot read the CRD: {k.stderr.strip()}")
    crd = json.loads(k.stdout)
    if crd != yaml.safe_load(body):
        raise RuntimeError(f"{path}: PyYAML (YAML 1.1) reads the CRD differently from kubectl; "
                           "quote the ambiguous scalar")
    rc, answer, k = post(crd)
    if answer.get("reason") == "AlreadyExists":
        rc, answer, k = post(renamed(crd))
    if rc == 0:
        if answer.get("kind") != "CustomResourceDefinition":
            raise RuntimeError(f"{path}: success without a CRD: {answer}")
        verdict, causes = "accepted", []
    else:
        if answer.get("kind") != "Status" or answer.get("reason") != "Invalid":
            raise RuntimeError(f"{path}: unexpected answer: {answer}")
        verdict = "rejected"
        causes = [f"# cause: {c.get('field', '')}: {c.get('message', '').split(chr(10))[0]}"
                  for c in answer.get("details", {}).get("causes", [])]
        if not causes:
            raise RuntimeError(f"{path}: rejected without causes: {answer}")
    if (k.returncode == 0) != (verdict == "accepted"):
        raise RuntimeError(f"{path}: raw POST says {verdict}, kubectl create says rc={k.returncode}: {k.stderr}")
    return verdict, causes


def normal(lines):
    return [re.sub(r"selfType\d+", "selfType", l) for l in lines]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare only, do not rewrite")
    ap.add_argument("--runs", type=int, default=1, help="ask N times and require equal answers")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    files = args.files or sorted(
        os.path.join(HERE, d, n) for d in ("rejected", "accepted")
        for n in os.listdir(os.path.join(HERE, d)) if n.endswith(".yaml"))

    problems = 0
    for path in files:
        rel = os.path.relpath(path, HERE)
        text = open(path).read()
        header, body = split(text)
        try:
            answers = [ask(rel, body) for _ in range(args.runs)]
        except RuntimeError as e:
            print(f"ERROR {e}")
            problems += 1
            continue
        verdict, causes = answers[0]
        if any((v, normal(c)) != (verdict, normal(causes)) for v, c in answers[1:]):
            print(f"UNSTABLE {rel}: {answers}")
            problems += 1
            continue
        kept = [l for l in header if not l.startswith(("# server:", "# cause:"))]
        if not kept or not kept[0].startswith("# case: "):
            print(f"NO-CASE {rel}: the first line must be `# case: ...`")
            problems += 1
        new_header = kept[:1] + [f"# server: {verdict}"] + causes + kept[1:]
        # corpus rules: the directory names the verdict, causes are about defaults
        d = os.path.basename(os.path.dirname(os.path.abspath(path)))
        if d in ("rejected", "accepted") and d != verdict:
            print(f"WRONG-DIR {rel}: server says {verdict}")
            problems += 1
        for c in causes:
            if ".default" not in c.split(": ", 2)[1]:
                print(f"NOT-A-DEFAULT {rel}: {c}")
                problems += 1
        if args.check:
            if normal(new_header) != normal(header):
                problems += 1
                print(f"DIFF {rel}")
                for l in header:
                    if l not in new_header:
                        print(f"  - {l}")
                for l in new_header:
                    if l not in header:
                        print(f"  + {l}")
        elif new_header != header:
            with open(path, "w") as f:
                f.write("\n".join(new_header) + "\n" + body)
            print(f"wrote {rel}: {verdict}, {len(causes)} cause(s)")
    for d, other in (("rejected", "accepted"), ("accepted", "rejected")):
        if not args.files:
            for n in sorted(os.listdir(os.path.join(HERE, d))):
                if n.endswith(".yaml") and not os.path.exists(os.path.join(HERE, other, n)):
                    print(f"NO-TWIN {d}/{n}")
                    problems += 1
    print(f"{len(files)} file(s), {problems} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
