/*
 * consecutive.c — breakpoints on consecutive instructions of one line and
 * on lines that follow each other, so a script can continue and
 * reverse-continue from one to the next and stepi between them.
 */
int a, b, c;

int main(void)
{
	a = 1;
	b = 2;
	c = a + b;
	a = c * 2;
	b = a - c;
	return a + b + c == 12 ? 0 : 1;
}
