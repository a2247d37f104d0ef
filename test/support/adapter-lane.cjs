process.env.TOKEN_SIM_ADAPTER = 'lane';
