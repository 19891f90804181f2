"""Layer 5, io: files and data in, networks out (and back).

:mod:`~bbn.io.chunks` reads CSV or Parquet files a block of rows at a time;
:mod:`bbn.io.formats` reads and writes models (``.bn``, BIF, XMLBIF, Hugin, UAI) on one
skeleton: a fast path, then located errors (file:line:column) where it fails.
Imports: core … model.
"""
