#!/bin/sh
# How the files here were made, by GNU Backgammon 1.07 (Debian's gnubg) playing itself:
#   make_records.sh NAME LENGTH SEED NOISE0 NOISE1
# writes NAME.mat and NAME.sgf (the match analysed by gnubg at 0 ply) and NAME.txt (gnubg's
# statistics of it). Player 0 plays at 0 ply with noise NOISE0, player 1 with NOISE1.
#   sh make_records.sh match3 3 3 0.04 0.01
#   sh make_records.sh match5 5 5 0.08 0.02
#   sh make_records.sh money9 0 9 0.05 0.0     (then renamed money.*: a session with a beaver)
#   sh make_records.sh match7 7 105 0.02 0.04  (only .mat and .txt kept: its SGF is 500 kB;
#                                              drops, and white's win written on black's row)
name=$1; length=$2; seed=$3; n0=$4; n1=$5
if [ "$length" = 0 ]; then start="set automatic game off
set jacoby on
set beavers 1
new session"; else start="new match $length"; fi
cat > $name.cmd <<EOC
set seed $seed
set player 0 gnubg
set player 1 gnubg
set player 0 chequerplay evaluation plies 0
set player 0 chequerplay evaluation noise $n0
set player 0 cubedecision evaluation plies 0
set player 0 cubedecision evaluation noise $n0
set player 1 chequerplay evaluation plies 0
set player 1 chequerplay evaluation noise $n1
set player 1 cubedecision evaluation plies 0
set player 1 cubedecision evaluation noise $n1
$start
set analysis chequerplay evaluation plies 0
set analysis cubedecision evaluation plies 0
analyse match
export match mat $PWD/$name.mat
save match $PWD/$name.sgf
show statistics match
EOC
timeout 120 /usr/games/gnubg -t -q -r < $name.cmd > $name.out 2>&1
sed -n '/Player  *gnubg/,$p' $name.out > $name.txt
