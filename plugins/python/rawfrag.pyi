# Type stubs of the rawfrag extension module (plugins/python/*.c).
"""rawfrag: read, decode and check PERF_SAMPLE_RAW payloads of perf.data files."""
import os
from types import TracebackType
from typing import Any, BinaryIO, Iterator, Optional, Sequence, Union

_Source = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]", BinaryIO]
_Json = Any  # dict/list/int/str/bool/None as report --format json writes them

class Error(Exception):
    """An unusable input, as the commands report it (they exit 2)."""
    file: Optional[str]  # the input's name
    offset: Optional[int]  # file offset of the bad record, None when it does not apply
    reason: str  # why

# A violation is a dict: {'kind': str, 'severity': 'error'|'warning', 'message': str,
# 'raw_off': int (-1: n/a)}; check() adds 'offset': int and 'event': str.

class Sample:
    """One sample. Values the sample does not carry are None."""
    event: str  # perf script's ev_name, e.g. 'sched:sched_switch'
    producer: Optional[str]  # decoder of the raw payload: tracepoint, bpf_skb, ibs_op ...
    time_ns: Optional[int]
    cpu: Optional[int]
    pid: Optional[int]
    tid: Optional[int]
    comm: Optional[str]  # as perf script shows it
    period: Optional[int]
    ip: Optional[int]  # the address as sampled
    # Symbols as report resolves them (the maps as the stream had them at this sample):
    sym: Optional[str]  # symbol of ip; None: [unknown] (or no PERF_SAMPLE_IP)
    symoff: Optional[int]  # ip's offset in sym
    dso: Optional[str]  # DSO of ip as perf names it; None: no map
    addr: Optional[int]  # PERF_SAMPLE_ADDR
    # callee first; each {'ip': int, 'sym': str|None, 'symoff': int|None, 'dso': str|None}
    # plus 'inlined': True for a function perf adds from DWARF inline info. ip is what
    # perf script prints: the offset in the DSO for user frames. None: no callchain.
    callchain: Optional[list[dict[str, Any]]]
    # {'user': {'abi': int, 'AX': int, ...}, 'intr': {...}} by perf's register names
    regs: Optional[dict[str, dict[str, int]]]
    raw: Optional[bytes]  # the raw area: raw_size bytes (payload + pad)
    raw_size: Optional[int]
    raw_len: Optional[int]  # the producer's true length, None if not known
    pad: Optional[int]  # raw_size - raw_len
    pad_zero: Optional[bool]
    fields: dict[str, _Json]  # exactly report --format json's "fields"
    violations: tuple[dict[str, Any], ...]  # raw-layout findings of this sample (() = clean)
    offset: int  # file offset of the record
    def to_dict(self) -> dict[str, _Json]:
        """The object report --format json prints for this sample (addresses and
        register values as its "0x.." strings)."""

class Reader:
    """An open input: context manager and iterator of Sample (memory flat in file size)."""
    path: str
    mode: Optional[str]  # 'file' or 'pipe' (the perf.data format); None once closed
    def __enter__(self) -> "Reader": ...
    def __exit__(self, t: Optional[type], v: Optional[BaseException],
                 tb: Optional[TracebackType]) -> bool: ...
    def __iter__(self) -> Iterator[Sample]: ...
    def __next__(self) -> Sample: ...
    def close(self) -> None: ...
    def stats(self) -> dict[str, Any]:
        """Counts as report --stats: {'total', 'records', 'events', 'lost',
        'lost_samples', 'skipped'}. A new pass over the input; on stdin/FIFOs only
        before iterating."""
    def check(self) -> dict[str, Any]:
        """perf rawfrag check of the whole input: {'samples', 'errors', 'warnings',
        'clean', 'events', 'violations'}. Raises Error where check exits 2."""
    def aggregate(self, *, sort: Union[None, str, Sequence[str]] = None,
                  weight: Optional[str] = None, hist: Optional[str] = None,
                  **opts: Union[str, int, bool, Sequence[str]]) -> list[dict[str, Any]]:
        """perf report's table as rows: one dict per entry ({'event', 'kind',
        'keys', 'samples', 'period', 'weight', 'percent'}) in the table's order,
        or per bucket with hist ('field', 'lo', 'hi', 'count'); sort, weight and
        hist as report --sort, --weight, --hist. A new pass, as stats()."""
    def write(self, format: str, path: str, **opts: Union[str, int, bool, Sequence[str]]
              ) -> None:
        """The whole input through one of the library's outputs (formats()) into
        path ('-': stdout), the bytes perf rawfrag report writes. opts: the
        selection (events, pid, tid, cpu, time, where, force, ordered, jobs: text and
        json rendered on that many threads, the same bytes; the
        Reader's events and where by default) and the output's own (text:
        fields, verbose, ns, tasks, header, callchain, max_stack; json: fields,
        callchain, max_stack). A new pass over the input, as stats()."""
    def folded(self, **opts: Union[str, int, bool]) -> str:
        """The call stacks as perf's stackcollapse.py prints them ('comm;root;...;leaf
        count' lines, sorted): report --format folded's text. opts: the selection
        as write()'s, kernel, include_pid, include_tid, no_comm, weight ('period'
        or a decoded field), max_stack. A new pass over the input."""
    def pprof(self, path: str, **opts: Union[str, int, bool, Sequence[str]]) -> None:
        """write('pprof', path, **opts): a gzipped pprof profile. opts: labels
        (pid, tid, cpu, comm, event, decoded fields), weight (numeric decoded
        fields, a sample type each), max_stack, and write()'s selection."""

    def to_sqlite(self, path: str, **opts: Union[str, int, bool, Sequence[str]]) -> None:
        """write('sqlite', path, **opts): perf's export-to-sqlite database plus
        every event's decoded fields, raw_check and lost (overwrite=True
        replaces an existing file)."""

def open(source: _Source, *, events: Union[None, str, Sequence[str]] = None,
         ordered: bool = True, force: bool = False, strict: bool = False,
         where: Optional[str] = None, symbols: bool = True) -> Reader:
    """Open a perf.data (file or pipe format, zstd records too); '-' is stdin.
    events: names/globs (list or comma list). ordered: perf script's time order.
    where: only samples whose fields match (the language of report --where).
    symbols: sym/symoff/dso/callchain as report resolves them; False leaves them
    None and reads no symbol tables (faster)."""

class Decoder:
    """Decodes perf script's raw_buf inside a handler. path: the recording (default:
    perf script's -i/--input from the process's command line, else perf.data).
    Raises Error when perf script reads a pipe (-i - or stdin)."""
    path: Optional[str]
    def __init__(self, path: Union[None, str, bytes, "os.PathLike[str]"] = None, *,
                 strict: bool = False) -> None: ...
    def decode(self, event_name: str, raw_buf: bytes,
               sample: Optional[dict[str, Any]] = None) -> dict[str, _Json]:
        """The fields of one payload, as report --format json's "fields"."""
    def check(self, event_name: str, raw_buf: bytes,
              sample: Optional[dict[str, Any]] = None) -> list[dict[str, Any]]:
        """The raw-layout violations of one payload ([] = clean)."""
    def decode_check(self, event_name: str, raw_buf: bytes,
                     sample: Optional[dict[str, Any]] = None
                     ) -> tuple[dict[str, _Json], list[dict[str, Any]]]: ...
    def producer(self, event_name: str) -> Optional[str]: ...

def version() -> str: ...
def formats() -> list[str]:
    """The outputs Reader.write() writes: 'text', 'json', 'pcapng', 'stats', 'header', 'table',
    'folded', 'flamegraph-json', 'flamegraph', 'pprof', 'sqlite'."""
