"""The exit codes of every ``bbn`` command.

0 success; 1 a well-formed question that cannot be answered (impossible evidence, or
an approximate method that found no answer, and only that); 2 everything else that is
wrong with the input: bad usage, an unreadable or invalid model or data file, a
malformed query, a model too large for the memory limit;
130 on Ctrl-C (128 + SIGINT, as a shell reports it); 141 when the reader of the output
closed it (128 + SIGPIPE: ``bbn sample ... | head``, no message).

>>> EXIT_OK, EXIT_UNANSWERABLE, EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE
(0, 1, 2, 130, 141)
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_UNANSWERABLE = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

__all__ = ["EXIT_BAD_INPUT", "EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_UNANSWERABLE"]
