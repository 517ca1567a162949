# Sourced by the kill-and-resume tests. record_units FILE prints how many units (rows, elements,
# cells) an axibulk checkpoint record lists, counted as axibulk reads it (core/partial.c): after
# the header line, lists of int64 words [magic, n, n units, n + sum of the units]; a list that is
# incomplete or whose checksum fails ends the count. Prints 0 for a missing or empty record.
record_units() {
    [ -s "$1" ] || { echo 0; return; }
    local h
    h=$(head -n 1 "$1" | wc -c)
    od -An -v -t d8 -w8 -j "$h" "$1" 2>/dev/null |
        awk 'state == 0 {state = 1; next}
             state == 1 {n = $1; left = n; sum = n; if (n <= 0) exit; state = 2; next}
             state == 2 {sum += $1; if (--left == 0) state = 3; next}
             state == 3 {if ($1 != sum) exit; total += n; state = 0}
             END {print total + 0}'
}
