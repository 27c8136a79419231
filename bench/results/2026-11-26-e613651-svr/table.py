import json,sys
def f(x,n=3):
    return ('%%.%df'%n)%x
svr=[json.loads(l) for l in open(sys.argv[1])]
oc=[json.loads(l) for l in open(sys.argv[2])]
print('### SVR (-s 12, 13)\n')
print('| data | -s | C | -e | liblinear CPU s | acfcd CPU s | ratio | liblinear wall s | acfcd wall s | liblinear dual | acfcd dual | liblinear primal | acfcd primal | lib iter | acfcd epochs (Newton) | lib ops | acf+shrink ops | acf ops | uniform ops | shrink ops |')
print('|'+'---|'*20)
for r in svr:
    d=r['def']
    it=str(r['lib_iter'])+(' → -s 11' if r['lib_switch'] else '')
    ep=str(d['ep'])+(' (%d)'%d['newton'] if d['newton'] else '')+('' if d['conv'] else ' cap')
    print('| %s | %d | %g | %s | %.3f | %.3f | **%.2f** | %.3f | %.3f | %.10g | %.10g | %.10g | %.10g | %s | %s | %.3g | %.3g | %.3g | %.3g | %.3g |'%(
        r['data'].replace('.svm',''),r['s'],r['c'],r['e'] or 'def',r['lib_cpu'],r['acf_cpu'],r['lib_cpu']/r['acf_cpu'],r['lib_wall'],r['acf_wall'],
        r['lib_obj'],d['obj'],r['lib_primal'],d['primal'],it,ep,r['lib_ops'],d['ops'],r['acf']['ops'],r['uniform']['ops'],r['shrink']['ops']))
print('\n### One-class SVM (-s 21, default -e 0.01)\n')
print('| data | ν | liblinear CPU s | acfcd CPU s | ratio | liblinear wall s | acfcd wall s | liblinear ½‖w‖² | acfcd ½‖w‖² | lib iter | acfcd epochs | lib ops | acf+shrink ops | acf ops | uniform ops | shrink ops |')
print('|'+'---|'*16)
for r in oc:
    d=r['def']
    print('| %s | %g | %.3f | %.3f | **%.2f** | %.3f | %.3f | %.10g | %.10g | %d | %d | %.3g | %.3g | %.3g | %.3g | %.3g |'%(
        r['data'],r['nu'],r['lib_cpu'],r['acf_cpu'],r['lib_cpu']/r['acf_cpu'],r['lib_wall'],r['acf_wall'],r['lib_obj'],d['obj'],r['lib_iter'],d['ep'],r['lib_ops'],d['ops'],r['acf']['ops'],r['uniform']['ops'],r['shrink']['ops']))
