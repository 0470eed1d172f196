# perf benchmark input for perl: word frequencies and a sort over a text.
# Usage: perl words.pl FILE
my %count;
open(my $fh, '<', $ARGV[0]) or die "words.pl: $ARGV[0]: $!\n";
while (my $line = <$fh>) {
    $count{lc $_}++ for $line =~ /(\w+)/g;
}
my @top = (sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count)[0 .. 9];
print join(' ', map { "$_=$count{$_}" } @top), "\n";
