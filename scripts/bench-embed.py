"""What the sentence model costs in a component (tests/fixtures/bench-embed)
under each runtime given: the start (Spin copies the mounted files), loading
the model per instance, encoding an ended interview's 30 sentences of about
20 words at once and one at a time, and the memory: the instance's linear
memory (its peak) and the serving process's resident memory before and at
its peak. Times are the component's own clock and the runtime process's CPU
(user and system, all threads); medians over the rounds. On a busy machine the
clock times grow with the load, the CPU much less.

    scripts/bench-embed.sh   (builds the component, fetches the model, runs this)
    python3 scripts/bench-embed.py [--rounds N] RUNTIME...   (RUNTIME: a path to spin or spin-host)
"""
import argparse, json, os, socket, statistics, subprocess, sys, tempfile, time, urllib.request

# An ended interview: 30 sentences of about 20 words, each its own.
INTERVIEW = [
    "I usually order books online late in the evening after work, when all the shops in our town are already closed.",
    "The shipping cost is the very first thing I look at, and it often decides whether I buy anything at all.",
    "Paying five euros to ship one single paperback feels wrong to me when the book itself costs only eight euros.",
    "I really do not want to make yet another account with yet another password just to buy one small thing.",
    "When a shop forces me to register before I can even pay, I usually just close the tab and leave the site.",
    "Guest checkout matters a lot to me because I rarely buy from the same small shop more than twice a year.",
    "I would much rather pay with the payment app on my phone than type my long card number into a form.",
    "Some shops only take credit cards, and I do not have one, so in the end I simply cannot buy there.",
    "Delivery time is less important to me than the price, as long as the parcel arrives within a week or so.",
    "I once waited three whole weeks for a parcel and nobody ever answered my emails asking about where it was.",
    "Tracking the parcel gives me some peace of mind, especially when I am buying a birthday gift for someone else.",
    "Returns should always be free, because I cannot see or touch the product before it finally arrives at my home.",
    "I usually compare prices on two or three different sites before I decide, which takes more time than I like.",
    "Reviews written by other readers help me much more than the description that the publisher puts on the page.",
    "The search on most shop websites is really poor, so I often end up finding new books through my friends instead.",
    "My biggest frustration is when the price suddenly changes between the basket and the very last payment step.",
    "Hidden fees that appear at the end make me feel tricked, even when the total is still quite reasonable overall.",
    "I prefer shops that show the full price including delivery right next to the picture of the product itself.",
    "Newsletters that arrive after a purchase annoy me, and unsubscribing from them is often harder than it should be.",
    "I like it when a shop simply remembers my address without me having to create a full account with a password.",
    "Buying second hand books online is much cheaper, but the condition is not always what the seller promised me.",
    "Local bookshops can order almost anything for me, but then I have to go there twice just to pick it up.",
    "I still read mostly on paper, because bright screens tire my eyes after a long day of work in the office.",
    "Ebooks are convenient when I travel for work, but I rarely finish a book that I started reading on my phone.",
    "A small loyalty discount would make me come back to a shop, as long as it does not require installing an app.",
    "The packaging is often far too big for one single book, which seems wasteful and honestly a little bit silly.",
    "I have stopped buying from one large platform because of the way it treats the people who work in its warehouses.",
    "Customer service by chat is fine for small questions, but I want a real person when something really goes wrong.",
    "The checkout on my phone is clumsy, with tiny buttons and long forms that keep forgetting what I already typed.",
    "If I could change just one thing, shipping a single book would never cost more than a cup of coffee does.",
]

MANIFEST = "tests/fixtures/bench-embed/spin.toml"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, sentences):
    request = urllib.request.Request(url, data=json.dumps(sentences).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = json.load(response)
    answer["wall_ms"] = (time.perf_counter() - start) * 1000
    return answer


def cpu_ms(pid):
    """User and system CPU the process (all its threads) has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def measured(pid, url, sentences):
    """`post`, with the CPU the serving process spent on it."""
    before = cpu_ms(pid)
    answer = post(url, sentences)
    answer["cpu_ms"] = cpu_ms(pid) - before
    return answer


def kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def serving_pid(process):
    """Spin serves HTTP from a `spin trigger http` child; the test host itself."""
    try:
        with open(f"/proc/{process.pid}/task/{process.pid}/children") as f:
            children = [int(pid) for pid in f.read().split()]
    except OSError:
        children = []
    for pid in children:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"trigger" in f.read():
                return pid
    return process.pid


def runtime_name(runtime):
    """`spin 4.0.2`, or the test host's binary name (it has no --version)."""
    name = os.path.basename(runtime)
    if name == "spin":
        return " ".join(subprocess.run([runtime, "--version"], capture_output=True, text=True).stdout.split()[:2])
    return f"{name} ({os.path.basename(os.path.dirname(runtime))})"


def bench(runtime, rounds):
    state = tempfile.mkdtemp(prefix="bench-embed-")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(os.path.join(state, "output.log"), "w")
    start = time.perf_counter()
    process = subprocess.Popen([runtime, "up", "--from", MANIFEST, "--listen", f"127.0.0.1:{port}",
                                "--state-dir", state, "--log-dir", os.path.join(state, "logs")],
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while True:
            if process.poll() is not None:
                sys.exit(f"{runtime} did not start: see {log.name}")
            try:
                urllib.request.urlopen(f"{base}/.well-known/spin/health", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        started_s = time.perf_counter() - start
        pid = serving_pid(process)
        idle_kib = kib(pid, "VmRSS")
        first = measured(pid, f"{base}/embed", INTERVIEW[:1])
        together = [measured(pid, f"{base}/embed", INTERVIEW) for _ in range(rounds)]
        alone = [measured(pid, f"{base}/embed", [sentence]) for sentence in INTERVIEW[:rounds * 3]]
        peak_kib = kib(pid, "VmHWM")
        words = statistics.mean(len(sentence.split()) for sentence in INTERVIEW)
        median = lambda answers, key: statistics.median(answer[key] for answer in answers)
        return {
            "runtime": runtime_name(runtime),
            "start_s": started_s,
            "first_load_ms": first["load_ms"],
            "load_ms": median(together + alone, "load_ms"),
            "interview_encode_ms": median(together, "encode_ms"),
            "interview_wall_ms": median(together, "wall_ms"),
            "interview_per_sentence_ms": median(together, "encode_ms") / len(INTERVIEW),
            "interview_cpu_ms": median(together, "cpu_ms"),
            "sentence_alone_cpu_ms": median(alone, "cpu_ms"),
            "sentence_alone_encode_ms": median(alone, "encode_ms"),
            "sentence_alone_wall_ms": median(alone, "wall_ms"),
            "words_per_sentence": words,
            "instance_memory_mib": max(answer["memory_bytes"] for answer in together) / 2**20,
            "instance_memory_alone_mib": max(answer["memory_bytes"] for answer in alone) / 2**20,
            "process_idle_mib": idle_kib / 1024,
            "process_peak_growth_mib": (peak_kib - idle_kib) / 1024,
        }
    finally:
        os.killpg(process.pid, 2)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("runtimes", nargs="+")
    args = parser.parse_args()
    wasm = "target/wasm32-wasip2/release/bench_embed.wasm"
    print(f"bench-embed.wasm: {os.path.getsize(wasm) / 1e6:.2f} MB; {len(INTERVIEW)} sentences an interview, "
          f"medians of {args.rounds} interviews and {args.rounds * 3} single sentences")
    rows = [bench(os.path.abspath(runtime), args.rounds) for runtime in args.runtimes]
    labels = {
        "start_s": "start, s (Spin copies the mounted files)",
        "first_load_ms": "first model load, ms",
        "load_ms": "model load per instance, ms",
        "interview_encode_ms": "30 sentences at once, ms",
        "interview_wall_ms": "30 sentences, whole request, ms",
        "interview_per_sentence_ms": "a sentence among the 30, ms",
        "interview_cpu_ms": "30 sentences, CPU of the runtime, ms",
        "sentence_alone_encode_ms": "one sentence alone, ms",
        "sentence_alone_wall_ms": "one sentence, whole request, ms",
        "sentence_alone_cpu_ms": "one sentence, CPU of the runtime, ms",
        "words_per_sentence": "words a sentence",
        "instance_memory_mib": "instance linear memory, peak, 30, MiB",
        "instance_memory_alone_mib": "instance linear memory, peak, one, MiB",
        "process_idle_mib": "serving process before, MiB",
        "process_peak_growth_mib": "serving process peak growth, MiB",
    }
    print(f"| {'':40} | " + " | ".join(f"{row['runtime']:>18}" for row in rows) + " |")
    print(f"|{'-' * 42}|" + "|".join("-" * 20 for _ in rows) + "|")
    for key, label in labels.items():
        print(f"| {label:40} | " + " | ".join(f"{row[key]:>18.1f}" for row in rows) + " |")


if __name__ == "__main__":
    main()
