"""nbgrader's exchange, where a submission is filed only under the account that made it.

nbgrader's own exchange names each submission ``<student id>+<assignment>+<time>+<random>`` in the
inbound folder, and the student id is whatever the submitting program wrote: ``nbgrader submit
--student=alice`` run by bob files bob's work as alice's, displacing hers, with one WARNING line
at collect. On a hub where each student has their own account (``make hub``), the file system
knows better: the account that made a folder owns it, and no student can make a file owned by
another. Here:

- :class:`OwnerCheckedSubmit` (students' side) refuses, at once, a student id that is not the
  account's own, and says why. It is a courtesy: the student controls that
  program. The guarantee is at collect;
- :class:`OwnerCheckedCollect` (the teacher's side) refuses every submission whose folder, or any
  file in it, is owned by another account than the one it names, or is a symbolic link (which
  could point at a classmate's collected work). A refused submission is never collected: the
  named student's own latest submission is, as if the forgery were not there. Each refusal is an
  ERROR in collect's output and a line in ``grading/refused-submissions.jsonl`` of the course
  folder (``python -m tools.nbgrader_grading flags`` lists them). It also keeps the time a
  submission says it was made honest: one that claims to be older than its files are is given its
  files' time, so that a late submission cannot pass as on time.

Use them with ``c.ExchangeFactory.submit`` and ``c.ExchangeFactory.collect`` (``make classroom``
writes these lines into the course folder's ``nbgrader_config.py``; the hub's students get the
submit class from ``classroom/student-config/``).
"""
from __future__ import annotations

import datetime
import json
import os
import pwd
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.exchange.default.submit import ExchangeSubmit
from nbgrader.utils import parse_utc

# A submission's own time may precede its files' last change by this much (submit copies the
# files, then writes its time stamp and sets their modes).
SLACK = datetime.timedelta(minutes=5)


def account_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


class OwnerCheckedSubmit(ExchangeSubmit):
    """``nbgrader submit``, refusing to sign a submission with another student's id."""

    def init_dest(self):
        wanted = self.coursedir.student_id
        account = account_name(os.getuid())
        if wanted not in ("*", "", account) and os.getuid() != 0:   # root's servers: the tests' shared account
            self.fail(f"Refused: you are signed in as {account}, and a submission is filed under the account "
                      f"that makes it, not under {wanted!r}. Submit without --student (or with --student={account}).")
        super().init_dest()


def refusal(path: str, student: str) -> str | None:
    """Why the submission folder ``path``, which names ``student``, cannot be theirs (or None)."""
    try:
        status = os.lstat(path)
    except OSError as error:
        return f"unreadable ({error.strerror})"
    if os.path.islink(path):
        return "it is a symbolic link"
    owner = account_name(status.st_uid)
    if owner != student:
        return f"it names {student} but was made by the account {owner}"
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            entry = os.path.join(folder, name)
            info = os.lstat(entry)
            if os.path.islink(entry):
                return f"{os.path.relpath(entry, path)} is a symbolic link"
            if info.st_uid != status.st_uid:
                return f"{os.path.relpath(entry, path)} belongs to the account {account_name(info.st_uid)}"
    return None


def changed_last(path: str) -> datetime.datetime:
    """The last change of the folder or any file in it (ctime: no one but the kernel sets it)."""
    times = [os.lstat(path).st_ctime]
    for folder, dirs, files in os.walk(path):
        times += [os.lstat(os.path.join(folder, name)).st_ctime for name in dirs + files]
    return datetime.datetime.fromtimestamp(max(times), datetime.timezone.utc).replace(tzinfo=None)


class OwnerCheckedCollect(ExchangeCollect):
    """``nbgrader collect``, collecting only submissions made by the accounts they name."""

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        record["refusal"] = refusal(path, record["username"])
        self.__dict__.setdefault("_all_records", []).append(record)
        return record

    def _sort_by_timestamp(self, records):
        # The student's own submissions first, newest first: a forged one is never chosen over them.
        return sorted(records, key=lambda r: (r["refusal"] is None, r["timestamp"]), reverse=True)

    def copy_files(self):
        refused = [r for r in self.__dict__.get("_all_records", []) if r["refusal"]]
        for record in refused:
            self.log.error("REFUSED submission %s of %s: %s. It is not collected; %s's own submissions are "
                           "untouched.", record["filename"], self.coursedir.assignment_id, record["refusal"],
                           record["username"])
        if refused:
            log = Path(self.coursedir.root) / "grading" / "refused-submissions.jsonl"
            log.parent.mkdir(parents=True, exist_ok=True)
            known = set(log.read_text().splitlines()) if log.exists() else set()
            with open(log, "a") as out:
                for record in refused:
                    line = json.dumps({"assignment": self.coursedir.assignment_id, "claimed": record["username"],
                                       "file": record["filename"], "reason": record["refusal"]}, sort_keys=True)
                    if line not in known:
                        out.write(line + "\n")
        self.src_records = [r for r in self.src_records if not r["refusal"]]
        super().copy_files()
        for record in self.src_records:
            self._keep_time_honest(record)

    def _keep_time_honest(self, record) -> None:
        source = os.path.join(self.inbound_path, record["filename"])
        dest = self.coursedir.format_path(self.coursedir.submitted_directory, record["username"],
                                          self.coursedir.assignment_id)
        stamp = Path(dest) / "timestamp.txt"
        if not stamp.exists():
            return
        try:
            claimed = parse_utc(stamp.read_text().strip())
        except Exception:   # noqa: BLE001 (nbgrader's parser raises several kinds)
            claimed = None
        actual = changed_last(source)
        if claimed is None or claimed.replace(tzinfo=None) + SLACK < actual:
            self.log.warning("Submission %s says it was made at %s, but its files were last changed at %s UTC: "
                             "recorded with the files' time.", record["filename"], claimed, actual)
            stamp.write_text(actual.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
