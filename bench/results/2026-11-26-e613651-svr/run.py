import subprocess, sys, time, re, json, statistics, resource, os
# The programs and folders, from the environment: liblinear 2.50's train,
# a copy of it built to count non-zeros (see README.md), acfcd, the primal
# objective tool (README.md), the data and a scratch folder.
L=os.environ['LIBLINEAR']
LOPS=os.environ['LIBLINEAR_OPS']
A=os.environ['ACFCD']
POBJ=os.environ['POBJ']
DATA=os.environ['DATA']
TMP=os.environ.get('TMP','/tmp')
def run(cmd):
    r0=resource.getrusage(resource.RUSAGE_CHILDREN)
    t=time.perf_counter(); out=subprocess.run(cmd,capture_output=True,text=True); t=time.perf_counter()-t
    r1=resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu=(r1.ru_utime-r0.ru_utime)+(r1.ru_stime-r0.ru_stime)
    return t, cpu, out.stdout+'\n#STDERR\n'+out.stderr
def pobj(data, model, c, p, nu):
    o=subprocess.run([POBJ,'-c',str(c),'-p',str(p),'-n',str(nu),data,model],capture_output=True,text=True).stdout
    return float(o)
def one(data, s, c, e, reps=3, nu=0.5, p=0.1):
    args=['-s',str(s)]
    if s==21: args+=['-n',str(nu)]
    else: args+=['-c',str(c),'-p',str(p)]
    if e: args+=['-e',str(e)]
    tag='%d'%os.getpid()
    lm=TMP+'/lib.%s.model'%tag; am=TMP+'/our.%s.model'%tag
    lw=[];lc=[];aw=[];ac=[]
    for r in range(reps):
        t,cpu,lo=run([L]+args+[data,lm]); lw.append(t); lc.append(cpu)
        t,cpu,ao=run([A,'train']+args+['--report','json',data,am]); aw.append(t); ac.append(cpu)
    lobj=float(re.findall(r'Objective value = (\S+)',lo)[-1]); liter=int(re.findall(r'#iter = (\d+)',lo)[-1])
    res=dict(data=data.split('/')[-1],s=s,c=c,e=e,nu=nu,lib_wall=statistics.median(lw),lib_cpu=statistics.median(lc),
             lib_obj=lobj,lib_primal=pobj(data,lm,c,p,nu),lib_iter=liter,lib_switch='Switching' in lo,
             acf_wall=statistics.median(aw),acf_cpu=statistics.median(ac))
    if s==21: res['lib_rho']=float(re.findall(r'rho = (\S+)',lo)[-1])
    _,_,o=run([LOPS]+args+[data,lm]); m=re.findall(r'OPS (\d+)',o); res['lib_ops']=int(m[-1]) if m else None
    j=json.loads(ao.split('#STDERR')[0].strip().split('\n')[-1])
    res['def']=dict(obj=j['objective'],primal=pobj(data,am,c,p,nu),ep=j['epochs'],ops=j['operations'],conv=j['converged'],newton=j['newton_steps'],sec=j['seconds'])
    for sel in ('acf','uniform','shrink'):
        _,_,o=run([A,'train']+args+['--select',sel,'--report','json',data,am])
        j=json.loads(o.split('#STDERR')[0].strip().split('\n')[-1])
        res[sel]=dict(obj=j['objective'],primal=pobj(data,am,c,p,nu),ep=j['epochs'],ops=j['operations'],conv=j['converged'],newton=j['newton_steps'],sec=j['seconds'])
    return res
if __name__=='__main__':
    # run.py svr|oc OUT.jsonl SET,SET,...
    which=sys.argv[1]
    out=open(sys.argv[2],'a')
    if which=='svr':
        for data in sys.argv[3].split(','):
            for s in (12,13):
                for c in (1,10,100):
                    for e in (None,0.01):
                        r=one(DATA+'/'+data,s,c,e)
                        out.write(json.dumps(r)+'\n'); out.flush()
    else:
        for data in sys.argv[3].split(','):
            for nu in (0.1,0.5):
                r=one(DATA+'/'+data,21,1,None,nu=nu)
                out.write(json.dumps(r)+'\n'); out.flush()
