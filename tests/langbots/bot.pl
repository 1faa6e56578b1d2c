#!/usr/bin/perl
# bot.pl: a refd bot in Perl that plays a random card (tests/langbots.py).
use strict;
use warnings;
$| = 1;
my @cmds = qw(bid called deal_end deal_start draw genbid gencall genplay
    joker known_command list_commands match_end match_start name partner
    partner_hand play protocol_version quit trick version);
my %known = map { $_ => 1 } @cmds;
while (my $line = <STDIN>) {
	$line =~ s/#.*//s;
	my @w = split ' ', $line;
	my $id = (@w && $w[0] =~ /^\d+$/) ? shift @w : '';
	next unless @w;
	my ($c, $r, $ok) = ($w[0], '', 1);
	if ($c eq 'protocol_version') { $r = '2' }
	elsif ($c eq 'name') { $r = 'bot.pl' }
	elsif ($c eq 'version') { $r = '1' }
	elsif ($c eq 'known_command') { $r = defined $w[1] && $known{$w[1]} ? 'true' : 'false' }
	elsif ($c eq 'list_commands') { $r = join "\n", @cmds }
	elsif ($c eq 'genplay') {
		if (@w < 3) { ($ok, $r) = (0, 'no cards') }
		else { $r = $w[2 + int(rand(@w - 2))] }
	}
	elsif ($c eq 'genbid') { $r = 'pass' }
	elsif ($c eq 'gencall') { $r = substr('CDBS', int(rand(4)), 1) }
	elsif (!$known{$c}) { ($ok, $r) = (0, 'unknown command') }
	print(($ok ? '=' : '?') . $id . ($r eq '' ? '' : " $r") . "\n\n");
	exit 0 if $c eq 'quit';
}
