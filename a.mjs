import { fromUnits } from 'arbiter-client'; import('@grpc/grpc-js').then(()=>console.log('ok', fromUnits(1)))
