# Control protocol transcript: "> " is sent, "< " lines are the answer's
# lines expected, in order ("..." at the end matches any rest).
> 1 protocol_version
< =1 2
> 2 name
< =2 refd
> known_command match_start
< = true
> 3 known_command frobnicate
< =3 false
> 4 frobnicate
< ?4 unknown command
> 5 match_show
< ?5 usage: match_show ID
> 6 match_show banana
< ?6 match id: invalid
> 7 match_show -3
< ?7 match id: too small
> 8 bot_add only-name
< ?8 usage: bot_add NAME spawn COMMAND [ARG ...] | NAME remote TOKEN
> 9 bot_add x teleport y
< ?9 kind must be spawn or remote
> 10 bot_add r remote short
< ?10 a remote bot needs one token of 8 or more characters
> 11 match_start joker3
< ?11 usage: match_start VARIANT BOT ...
> 12 help match_stop
< =12 match_stop ID
> 13 status
< =13 version ...
< matches_running ...
> 99999999999 status
< ? syntax error
