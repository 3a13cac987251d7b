/*
 * machine_state.c — state at known places: globals and statics of several
 * sizes and types, locals in nested scopes and in a callee, and the
 * registers at a breakpoint, for a script that prints them forwards and
 * again after stepping back.
 */
char global_char = 'a';
short global_short = 1;
int global_int = 2;
long global_long = 3;
float global_float = 4.5f;
double global_double = 5.25;
static int static_int = 6;
int global_array[4] = { 1, 2, 3, 4 };

static int callee(int arg)
{
	static int calls;
	int local = arg * 2;
	calls++;
	global_int += local;
	return local + calls;
}

int main(void)
{
	int a = 10;
	global_char = 'b';
	global_short = 11;
	global_long = 33;
	global_float = 44.5f;
	global_double = 55.25;
	static_int = 66;
	{
		int a = 20;
		int b = callee(a);
		global_array[0] = b;
		{
			long c = a + b;
			global_array[1] = (int)c;
		}
	}
	a = callee(a);
	global_array[2] = a;
	return global_array[2] == 22 ? 0 : 1;
}
