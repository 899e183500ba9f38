# extract.awk: writes the examples of documentation files as C or C++
# for tests/docs/check. Run with -v out=DIR on Markdown files (fenced ```c
# and ```cpp blocks; a fence with more words, such as ```c excerpt, marks
# text that is not an example and is left out) or on clframe.h (comment
# lines indented four spaces past " * "; those after the header's C++
# section starts are C++). Each example goes to DIR as one of:
#   program-FILE-LINE.c  a block with main(): a program of its own (.cpp
#                        in C++);
#   test-FILE-LINE.c  a block with START_TEST: a Check test of its own;
#   fragments.c/.cpp  any other block, as the body of a function
#                     example_N, listed in fragments-list.c/.cpp.
# #line directives keep the documentation's file and line in errors.

function flush(   kind, path, file) {
    if (nlines == 0)
        return
    if (body ~ /int main\(/)
        kind = "program"
    else if (body ~ /START_TEST/)
        kind = "test"
    else
        kind = "fragment"
    if (kind != "fragment") {
        file = FILENAME
        gsub(/[^A-Za-z0-9]/, "_", file)
        path = out "/" kind "-" file "-" start "." lang
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

# Markdown: fenced blocks.
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
