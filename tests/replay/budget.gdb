set pagination off
set confirm off
echo \n@@ to the end of history\n
continue
monitor when
echo \n@@ goto, back and forth\n
goto 150000000
print round_marker
print cells[7][3]
print cells[200][100]
goto 3000000
print round_marker
print cells[7][3]
goto 97000001
print round_marker
print cells[255][511]
x/4gx &cells[128][0]
goto 41000000
print round_marker
print cells[200][100]
goto 120000007
print round_marker
print cells[7][3]
goto 61234567
print round_marker
x/4gx &cells[31][200]
echo \n@@ reverse-continue to a breakpoint\n
goto 140000000
break start_round
reverse-continue
print k
reverse-continue
print k
delete
echo \n@@ a watchpoint backwards and forwards\n
watch cells[100][5]
reverse-continue
print cells[100][5]
reverse-continue
print cells[100][5]
continue
print cells[100][5]
delete
watch round_marker
reverse-continue
print round_marker
delete
echo \n@@ a value written three times in the whole history\n
continue
watch rare_marker.value
reverse-continue
reverse-continue
reverse-continue
monitor when
delete
echo \n@@ who wrote it\n
eval "monitor last-write %lu 8", &cells[37][9]
eval "monitor next-write %lu 8", &round_marker
monitor when
