"""The scenario matrix. Each scenario is one configuration of the marker program (Main.java
arguments) and of the agent; `runs` separate JVMs are run for it (`quick_runs` in --quick, with
`quick_args` overriding arguments to keep CI short). Codes go into every trace-id (Ids.java)."""
from dataclasses import dataclass, field


@dataclass
class Scenario:
    name: str
    code: int
    what: str
    java_args: dict
    runs: int
    quick_runs: int
    quick_args: dict = field(default_factory=dict)
    agent_options: list = field(default_factory=list)
    jvm_flags: list = field(default_factory=list)
    late_attach: bool = False
    # The marker program's scenario= when not the default (late attach: "late-attach").
    program: str = ""
    # Run on the Java 21 runtime (--java21) instead of the build's JDK.
    java21: bool = False
    # Late attach: the earliest publish through the agent (first_active_ns in the manifest's
    # header) must come at most this many seconds after the agent's activation (its stats).
    publish_start_bound_s: float = 0.0
    # A second copy of the agent (another path) given as a second -agentpath ("startup") or
    # attached after READY ("attach"): it must refuse, naming the first, which keeps working.
    second_copy: str = ""
    ringbuf_mb: int = 16
    # Guards against a scenario that silently stops testing what it claims:
    require_moved: bool = False  # some marker must run on another OS thread than its publish
    require_reuse: bool = False  # some record must serve several threads in one run
    # All senders alive at once with records bound before any ends: no two may share a record.
    distinct_records: bool = False

    def arguments(self, quick):
        merged = dict(self.java_args)
        if quick:
            merged.update(self.quick_args)
        args = [f"{k}={v}" for k, v in merged.items()]
        program = self.program or ("late-attach" if self.late_attach else "")
        if program:
            args.insert(0, f"scenario={program}")
        return args


# The identity channel (agent channel=identity: no JVMTI; the reader follows HotSpot's record of
# the mounted thread into the agent's thread index).
IDENTITY = ["channel=identity"]


def _paper(lifetimes, scopes, publisher="api"):
    return dict(virtual=16, markers=8, lifetimes=lifetimes, scopes=scopes, publisher=publisher,
                transitions="paper")


FOUR_CARRIERS = ["-Djdk.virtualThreadScheduler.parallelism=4"]
TWO_CARRIERS = ["-Djdk.virtualThreadScheduler.parallelism=2",
                "-Djdk.virtualThreadScheduler.maxPoolSize=2"]


def _stress(**java_args):
    """The stress shape (Scenario fields): 1200 virtual + 16 platform threads alive at once, 90
    markers each (1000 + 8 x 6 in --quick), every kind of transition, 1 in 4 through
    OpenTelemetry, 4 carriers; some marker must run on another OS thread than its publish."""
    return dict(java_args=dict(virtual=1200, platform=16, markers=90, lifetimes="concurrent",
                               scopes="leaky", publisher="mixed", transitions="mix", **java_args),
                runs=2, quick_runs=1, quick_args=dict(virtual=1000, platform=8, markers=6),
                jvm_flags=FOUR_CARRIERS, ringbuf_mb=128, require_moved=True)


# Late attach to a JVM whose 2 carriers are held: "spin", 2 CPU-bound virtual threads that never
# yield; "pinned", 400 virtual threads pinned in Object.wait inside synchronized. (java_args,
# quick_args) of the late-attach-load program.
_HELD_CARRIERS = {"spin": (dict(load="spin", busy=2, after=400), dict(after=200)),
                  "pinned": (dict(load="pinned", busy=400, after=5), dict(busy=200))}


def _late_attach_held(load, runs, **fields):
    """Scenario fields of a late attach while the carriers are held (_HELD_CARRIERS[load]): the
    threads publish across the attach, and publishing must start within 1 s of it."""
    java_args, quick_args = _HELD_CARRIERS[load]
    return dict(java_args=java_args, runs=runs, quick_runs=1, quick_args=quick_args,
                late_attach=True, program="late-attach-load", jvm_flags=TWO_CARRIERS,
                publish_start_bound_s=1.0, **fields)


SCENARIOS = [
    Scenario("paper-clean-concurrent", 1,
             "16 virtual threads x 8 markers, all alive at once, every scope closed",
             _paper("concurrent", "clean"), runs=6, quick_runs=1, distinct_records=True),
    Scenario("paper-leaky-concurrent", 2,
             "as above, the last scope left open when the thread ends",
             _paper("concurrent", "leaky"), runs=6, quick_runs=1, distinct_records=True),
    Scenario("paper-clean-sequential", 3,
             "16 virtual threads x 8 markers one after another (carrier and record reuse)",
             _paper("sequential", "clean"), runs=6, quick_runs=1),
    Scenario("paper-leaky-sequential", 4,
             "as above, leaky-final: the next thread may get the leaky record back",
             _paper("sequential", "leaky"), runs=6, quick_runs=1),
    Scenario("otel-leaky-concurrent", 5,
             "paper shape through OpenTelemetry SDK spans and the ContextStorage decorator",
             _paper("concurrent", "leaky", "otel"), runs=6, quick_runs=1,
             distinct_records=True),
    Scenario("otel-clean-sequential", 6,
             "paper shape, sequential, through OpenTelemetry SDK spans",
             _paper("sequential", "clean", "otel"), runs=6, quick_runs=0),
    Scenario("bind-use", 7,
             "paper shape, leaky, agent bind=use (record bound at the first publish)",
             _paper("concurrent", "leaky", "mixed"), runs=6, quick_runs=1,
             agent_options=["bind=use"]),
    Scenario("bind-start", 8,
             "paper shape, leaky, agent bind=start (record bound at VirtualThreadStart)",
             _paper("concurrent", "leaky", "mixed"), runs=6, quick_runs=1,
             agent_options=["bind=start"], distinct_records=True),
    Scenario("stress", 9,
             "1200 virtual + 16 platform threads alive at once, 90 markers each, every kind of "
             "transition, 1 in 4 through OpenTelemetry, 4 carriers",
             **_stress(), distinct_records=True),
    Scenario("stress-bind-use", 10,
             "stress shape with bind=use: 1000 virtual + 8 platform threads x 20 markers",
             dict(virtual=1000, platform=8, markers=20, lifetimes="concurrent", scopes="clean",
                  publisher="mixed", transitions="mix", seed=3),
             runs=1, quick_runs=0, agent_options=["bind=use"], jvm_flags=FOUR_CARRIERS,
             ringbuf_mb=64,
             require_moved=True),
    Scenario("churn", 11,
             "20000 short-lived virtual threads then 400 platform threads, 200 alive at a time, "
             "2 markers each, leaky (records recycled to later threads)",
             dict(virtual=20000, platform=400, markers=2, lifetimes="waves", wave=200,
                  scopes="leaky", publisher="mixed", transitions="mix", seed=5),
             runs=2, quick_runs=1, quick_args=dict(virtual=2000, platform=40),
             ringbuf_mb=64, require_reuse=True),
    Scenario("platform", 12,
             "32 platform threads x 64 markers, concurrent, every kind of transition",
             dict(virtual=0, platform=32, markers=64, lifetimes="concurrent", scopes="clean",
                  publisher="mixed", transitions="mix", seed=9),
             runs=2, quick_runs=1, distinct_records=True),
    Scenario("late-attach", 13,
             "JVM started without the agent; 32 parked + 1 running virtual and 4 platform threads "
             "made a context current before the attach; 64 new virtual threads after it",
             dict(parked=32, platform=4, fresh=64, before=2, after=8),
             runs=6, quick_runs=1, late_attach=True),
    Scenario("two-copies-startup", 16,
             "paper shape, leaky; a second copy of the agent given as a second -agentpath "
             "refuses: the first copy publishes",
             _paper("concurrent", "leaky", "mixed"), runs=2, quick_runs=1,
             distinct_records=True, second_copy="startup"),
    Scenario("two-copies-attach", 17,
             "paper shape, leaky; a second copy of the agent attached on top of the startup one "
             "refuses and the attach fails: the first copy publishes",
             _paper("concurrent", "leaky", "mixed"), runs=2, quick_runs=1,
             distinct_records=True, second_copy="attach"),
    Scenario("late-attach-saturated", 14,
             "JVM started without the agent; 2 CPU-bound virtual threads that never yield fill both "
             "carriers and publish across the attach; publishing must start within 1 s of it",
             **_late_attach_held("spin", runs=4)),
    Scenario("late-attach-pinned-java21", 15,
             "Java 21, JVM started without the agent; 400 virtual threads pinned in Object.wait "
             "inside synchronized on 2 carriers, publishing across the attach; publishing must "
             "start within 1 s of it",
             **_late_attach_held("pinned", runs=4, java21=True)),
    # The same claims without JVMTI: no event repoints a carrier; every marker is read through
    # HotSpot's own record of the thread a carrier runs (docs/design.md, "Channels"). Records are
    # bound at a thread's first publish (as with bind=use), after the gate: a sender that ends
    # before another first publishes may hand its record on after a collection, so the
    # distinct-records guard does not apply.
    Scenario("identity-paper-leaky-concurrent", 20,
             "identity channel: paper shape, leaky, api and OpenTelemetry publishers",
             _paper("concurrent", "leaky", "mixed"), runs=6, quick_runs=1,
             agent_options=IDENTITY),
    Scenario("identity-paper-clean-sequential", 21,
             "identity channel: paper shape, sequential (carrier reuse)",
             _paper("sequential", "clean"), runs=4, quick_runs=0, agent_options=IDENTITY),
    Scenario("identity-stress", 22,
             "identity channel: 1200 virtual + 16 platform threads x 90 markers, every kind of "
             "transition (contended synchronized: JEP 491 unmounts inside the VM), 4 carriers",
             **_stress(seed=11), agent_options=IDENTITY),
    Scenario("identity-churn", 23,
             "identity channel: 20000 short-lived virtual then 400 platform threads in waves of "
             "200, leaky (records come back once their views are collected, then serve others)",
             dict(virtual=20000, platform=400, markers=2, lifetimes="waves", wave=200,
                  scopes="leaky", publisher="mixed", transitions="mix", seed=13),
             runs=2, quick_runs=1, quick_args=dict(virtual=2000, platform=40),
             agent_options=IDENTITY, ringbuf_mb=64, require_reuse=True),
    Scenario("identity-late-attach", 24,
             "identity channel attached late: 32 parked + 1 running virtual and 4 platform "
             "threads with a context before the attach; 64 new virtual threads after it",
             dict(parked=32, platform=4, fresh=64, before=2, after=8),
             runs=4, quick_runs=1, late_attach=True, agent_options=IDENTITY),
    Scenario("identity-late-attach-saturated", 25,
             "identity channel attached late to 2 carriers filled by CPU-bound virtual threads; "
             "publishing must start within 1 s of the attach",
             **_late_attach_held("spin", runs=2, agent_options=IDENTITY)),
    Scenario("identity-stress-java21", 26,
             "identity channel on Java 21 (JavaThread::_vthread, G1): the stress shape",
             **_stress(seed=17), java21=True, agent_options=IDENTITY),
    Scenario("identity-late-attach-pinned-java21", 27,
             "identity channel on Java 21 attached late to 400 virtual threads pinned in "
             "Object.wait inside synchronized on 2 carriers; publishing within 1 s",
             **_late_attach_held("pinned", runs=2, java21=True, agent_options=IDENTITY)),
]
