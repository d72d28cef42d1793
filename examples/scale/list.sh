#!/bin/sh
# The files `toolsift extract DIR` reads, NUL-separated, in the order it reads them:
# regular files only, names starting with "." left out (and such directories not
# entered), each file once (of two hard links, the first in that order). Split into
# batches for runs on their own, the list gives the records one run over DIR gives.
#
#   examples/scale/list.sh DIR > files.list
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
find -H "$1" -mindepth 1 -name '.*' -prune -o -type f -print0 |
    perl -0 -e '
        # toolsift walks a directory depth first, each directory sorted by name:
        # that is the order of the paths with "/" as the lowest byte.
        my @paths = map { chomp; $_ } <STDIN>;
        my %seen;
        for my $path (map { $_->[1] } sort { $a->[0] cmp $b->[0] }
                      map { (my $k = $_) =~ tr{/}{\0}; [$k, $_] } @paths) {
            my @st = stat $path;
            next if @st && $seen{"$st[0]:$st[1]"}++;
            print "$path\0";
        }'
