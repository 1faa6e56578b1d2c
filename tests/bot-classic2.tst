# Every line seat 0 receives in a one-deal classic2 match with seed
# 5e5e...5e against tests/evilbot.py good; see test_bot_transcript.
# CHAIN stands for the final link, which covers the time of each move,
# RECEIPT for the signed head of the log at the end and its key.
1 name
2 version
3 match_start match=M variant=classic2 seat=0 seats=gold0,gold1 commit=59430ebb538d25e9378b96cd95e3348deac4b95134a8e087962bbb0d104ae06b target=10 deals_to_win=1 deal_cap=100 removed_two=random move_ms=5000 bank_ms=0 startup_ms=10000 policy=forfeit max_faults=3
4 deal_start 1 1 6D 8S 10D 4S
5 genplay 5000 8S 10D 4S
6 play 0 10D
7 play 1 10S
8 trick 0 8
9 draw 10C
10 genplay 5000 8S 4S 10C
11 play 0 8S
12 play 1 7S
13 trick 0 2
14 draw 5S
15 genplay 5000 4S 10C 5S
16 play 0 10C
17 play 1 8B
18 trick 0 6
19 draw 1S
20 genplay 5000 4S 5S 1S
21 play 0 1S
22 play 1 5C
23 trick 0 11
24 draw 5B
25 genplay 5000 4S 5S 5B
26 play 0 4S
27 play 1 1B
28 trick 0 11
29 draw 9B
30 genplay 5000 5S 5B 9B
31 play 0 5S
32 play 1 3D
33 trick 1 10
34 draw 8C
35 play 1 4D
36 genplay 5000 5B 9B 8C # trick 4D
37 play 0 8C
38 trick 1 2
39 draw 2S
40 play 1 3B
41 genplay 5000 5B 9B 2S # trick 3B
42 play 0 5B
43 trick 1 10
44 draw 4C
45 play 1 1C
46 genplay 5000 9B 2S 4C # trick 1C
47 play 0 2S
48 trick 1 11
49 draw 9D
50 play 1 8D
51 genplay 5000 9B 4C 9D # trick 8D
52 play 0 9D
53 trick 0 5
54 draw 2C
55 genplay 5000 9B 4C 2C
56 play 0 9B
57 play 1 7D
58 trick 1 3
59 draw 1D
60 play 1 3C
61 genplay 5000 4C 2C 1D # trick 3C
62 play 0 1D
63 trick 0 21
64 draw 7B
65 genplay 5000 4C 2C 7B
66 play 0 4C
67 play 1 6S
68 trick 0 0
69 draw 9S
70 genplay 5000 2C 7B 9S
71 play 0 2C
72 play 1 6B
73 trick 0 0
74 draw 4B
75 genplay 5000 7B 9S 4B
76 play 0 7B
77 play 1 6C
78 trick 0 0
79 draw 5D
80 genplay 5000 9S 4B 5D
81 play 0 4B
82 play 1 2D
83 trick 1 0
84 draw 3S
85 play 1 9C
86 genplay 5000 9S 5D 3S # trick 9C
87 play 0 5D
88 trick 0 3
89 draw 2B
90 genplay 5000 9S 3S 2B
91 play 0 9S
92 play 1 10B
93 trick 0 7
94 genplay 5000 3S 2B
95 play 0 3S
96 play 1 7C
97 trick 0 10
98 genplay 5000 2B
99 play 0 2B
100 play 1 6D
101 trick 1 0
102 deal_end seat0 84,36 1,0 -
103 match_end seat0 1,0 5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e CHAIN RECEIPT
104 quit
