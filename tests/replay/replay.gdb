set pagination off
set confirm off
break factorial
continue
continue
continue
bt
echo \n@@ reverse-continue to the previous hit\n
reverse-continue
print n
delete
watch counter
continue
continue
echo \n@@ watch backwards\n
reverse-continue
reverse-continue
delete
echo \n@@ who wrote counter last, and who writes it next\n
eval "monitor last-write %lu 8", &counter
eval "monitor next-write %lu 8", &counter
echo \n@@ to the end of history\n
continue
echo \n@@ registers and memory at the end\n
info registers rip
x/2gx $rsp
echo \n@@ reverse-stepi, then stepi back\n
reverse-stepi
stepi
echo \n@@ break in bump, reverse-finish and reverse-next\n
break bump
reverse-continue
reverse-finish
reverse-next
echo \n@@ back to the start of history\n
delete
reverse-continue
monitor when
