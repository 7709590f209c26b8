"""Groups the question names with labels of its own: "call the two groups 'members' and 'guests'",
"those outside the programme under the label 'none'". Two labels split the rows on a flag or on
whether a column is set; one label names the NULL group of a grouping that would otherwise drop it.
"""

from __future__ import annotations

import dataclasses

from services.embedded.plan import Dim

_LABEL_WORDS = frozenset({"label", "labels", "labelled", "labeled", "labelling", "labeling", "called", "named",
                          "marked", "tagged", "titled"})
_NEGATIVE_PREFIXES = ("not ", "no ", "non", "un", "without", "never")


class LabelsMixin:
    def _labels(self) -> None:
        quoted = self._label_links()
        if not quoted:
            return
        texts = [self.tokens[self.links[k].start].text.strip("'\"") for k in quoted]
        p = self.plan
        flags = [f for f in p.filters if f.kind in ("bool", "null", "notnull")]
        if len(texts) == 2:
            ref = flags[0].col if flags else self._split_column()
            if ref is None:
                return
            column = self.index.column(ref.table, ref.column)
            if column.kind != "bool" and not column.nullable:
                return
            negative = [t for t in texts if t.lower().startswith(_NEGATIVE_PREFIXES)]
            on, off = (texts[1], texts[0]) if negative == [texts[0]] else (texts[0], texts[1])
            self._drop_conditions(ref, texts)
            p.dims = [d for d in p.dims if (d.table, d.column) != (ref.table, ref.column)]
            p.dims.insert(0, Dim("column", ref.table, ref.column, labels=(on, off)))
        elif len(texts) == 1:
            dim = next((d for d in p.dims if d.kind == "column" and self.index.column(d.table, d.column).nullable), None)
            if dim is None:
                return
            self._drop_conditions(dim, texts)
            p.dims = [dataclasses.replace(d, null_label=texts[0]) if d is dim else d for d in p.dims]
        self.used |= set(quoted)

    def _label_links(self) -> list[int]:
        """Quoted words after a word that labels ("labelled 'A' and 'B'", "under the label 'none'")."""
        out = []
        for k, lk in enumerate(self.links):
            if self.tokens[lk.start].kind != "quoted":
                continue
            before = self.lows[max(0, lk.start - 6):lk.start]
            if any(w in _LABEL_WORDS for w in before):
                out.append(k)
        return out

    def _split_column(self):
        """The flag or optional column the question names, when no filter read it."""
        for lk in self.links:
            c = lk.best
            if c.kind == "column" and (self.col(c).kind == "bool" or self.col(c).nullable and self.col(c).references):
                return dataclasses.replace(c)
        return None

    def _drop_conditions(self, ref, texts: list[str]) -> None:
        lowered = {t.lower() for t in texts}
        self.plan.filters = [f for f in self.plan.filters if not (
            (f.col.table, f.col.column) == (ref.table, ref.column) and f.kind in ("bool", "null", "notnull")
            or f.kind in ("eq", "ne") and {str(v).lower() for v in f.values} & lowered)]
