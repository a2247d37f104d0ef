process.env.TOKEN_SIM_ADAPTER = 'express';
