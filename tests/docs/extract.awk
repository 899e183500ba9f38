# extract.awk: writes the examples of one documentation file as C or C++
# for tests/docs/check. Run with -v out=DIR on README.md (fenced ```c and
# ```cpp blocks) or on clframe.h (comment lines indented four spaces past
# " * "; those after the header's C++ section starts are C++). Each example
# goes to DIR as one of:
#   program-LINE.c    a block with main(): a program of its own;
#   test-LINE.c       a block with START_TEST: a Check test of its own;
#   fragments.c/.cpp  any other block, as the body of a function
#                     example_N, listed in fragments-list.c/.cpp.
# #line directives keep the documentation's file and line in errors.

function flush(   kind, path, name) {
    if (nlines == 0)
        return
    if (body ~ /int main\(/)
        kind = "program"
    else if (body ~ /START_TEST/)
        kind = "test"
    else
        kind = "fragment"
    if (kind != "fragment") {
        path = out "/" kind "-" start "." lang
        printf "#line %d \"%s\"\n%s", start, FILENAME, body > path
        close(path)
    } else {
        path = out "/fragments." lang
        examples++
        printf "static void example_%d(void)\n{\n#line %d \"%s\"\n%s", \
               examples, start, FILENAME, body >> path
        if (last !~ /[;}][ \t]*$/)
            printf ";\n" >> path
        printf "}\n" >> path
        printf "    {example_%d, \"%s\", %d},\n", examples, FILENAME, start \
               >> (out "/fragments-list." lang)
    }
    nlines = 0
    body = ""
}

function add(line) {
    if (nlines == 0)
        start = FNR
    body = body line "\n"
    last = line
    nlines++
}

# README.md: fenced blocks.
FILENAME ~ /\.md$/ && /^```(c|cpp)$/ { inside = 1; lang = substr($0, 4); next }
FILENAME ~ /\.md$/ && inside && /^```$/ { inside = 0; flush(); next }
FILENAME ~ /\.md$/ && inside { add($0); next }

# clframe.h: indented comment lines.
FILENAME ~ /\.h$/ && /^} \/\* extern "C" \*\// { cxx = 1 }
FILENAME ~ /\.h$/ && /^ \*     [^ ]/ && nlines == 0 {
    lang = cxx ? "cpp" : "c"; add(substr($0, 4)); next
}
FILENAME ~ /\.h$/ && /^ \*     / && nlines > 0 { add(substr($0, 4)); next }
FILENAME ~ /\.h$/ { flush() }
END { flush() }
