import json,sys,subprocess,statistics,re
sys.path.insert(0,'.')
from run import run, A, DATA, TMP
rows=[json.loads(l) for l in open('svr.jsonl')]+[json.loads(l) for l in open('oc.jsonl')]
for r in rows:
    d=r['def']
    if d['obj'] <= r['lib_obj']+1e-9*abs(r['lib_obj']): continue
    e=r['e'] or (0.01 if r['s']==21 else 0.1)
    args=['-s',str(r['s'])]+(['-n',str(r['nu'])] if r['s']==21 else ['-c',str(r['c']),'-p','0.1'])
    data=DATA+'/'+r['data']
    while True:
        e/=2
        cpus=[];obj=None
        for k in range(3):
            _,cpu,o=run([A,'train']+args+['-e',str(e),'--report','json',data,TMP+'/eq.model'])
            cpus.append(cpu); obj=json.loads(o.split('#STDERR')[0].strip().split('\n')[-1])['objective']
        if obj <= r['lib_obj'] or e < 1e-6:
            print(json.dumps(dict(data=r['data'],s=r['s'],c=r['c'],e=r['e'],nu=r.get('nu'),lib_cpu=r['lib_cpu'],lib_obj=r['lib_obj'],eq_e=e,eq_cpu=statistics.median(cpus),eq_obj=obj)),flush=True)
            break
