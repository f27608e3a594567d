// The XDR types reachable from LedgerCloseMeta (v0, v1, v2), as data: one line per type, compiled once by
// xdr-walker.ts into validating skip functions. Written from the current stellar-xdr definitions (protocol 23+, incl.
// SorobanCredentials ADDRESS_V2 / ADDRESS_WITH_DELEGATES; feature-gated CAP-83/CAP-85 arms are not active and absent).
//
// Notation (one definition per name):
//   struct f1:T1 f2:T2 ...          fields in order
//   union D c1,c2=arm:T c3=void ... D = discriminant type (i32 or an enum name, read as int32); only the listed cases
//                                   are valid; `default=` would match the rest (no reachable type needs it today)
//   enum v1 v2 ...                  the valid int32 values
//   T                               an alias (a typedef of an array)
// Type expressions: i32 u32 i64 u64 bool void, opaque[N] (fixed), opaque<N> / string<N> (variable, N = bound, empty
// = 2^32-1), T[N] fixed array, T<N> variable array, T? optional, and @LedgerEntry @LedgerKey @SCVal @SCAddress for
// the values that @strata/ledger-key reads and validates. Typedefs of primitives (Hash, uint32, TimePoint, ...) are
// written out; nested anonymous structs and unions are named Parent + field (`ContractEventbody`).

/** XDR schema version: the stellar-xdr `main` of July 2026 (protocol 23/24 plus SorobanCredentials 2 and 3). */
export const LCM_SCHEMA_XDR_VERSION = 'stellar-xdr main 2026-07';

export const LCM_SCHEMA: Readonly<Record<string, string>> = {
  LedgerCloseMeta: 'union i32 0=v0:LedgerCloseMetaV0 1=v1:LedgerCloseMetaV1 2=v2:LedgerCloseMetaV2',
  LedgerCloseMetaV0:
    'struct ledgerHeader:LedgerHeaderHistoryEntry txSet:TransactionSet txProcessing:TransactionResultMeta<> upgradesProcessing:UpgradeEntryMeta<> scpInfo:SCPHistoryEntry<>',
  LedgerHeaderHistoryEntry: 'struct hash:opaque[32] header:LedgerHeader ext:LedgerHeaderHistoryEntryext',
  LedgerHeader:
    'struct ledgerVersion:u32 previousLedgerHash:opaque[32] scpValue:StellarValue txSetResultHash:opaque[32] bucketListHash:opaque[32] ledgerSeq:u32 totalCoins:i64 feePool:i64 inflationSeq:u32 idPool:u64 baseFee:u32 baseReserve:u32 maxTxSetSize:u32 skipList:opaque[32][4] ext:LedgerHeaderext',
  StellarValue: 'struct txSetHash:opaque[32] closeTime:u64 upgrades:opaque<128><6> ext:StellarValueext',
  StellarValueext: 'union StellarValueType 0=void 1=lcValueSignature:LedgerCloseValueSignature',
  StellarValueType: 'enum 0 1',
  LedgerCloseValueSignature: 'struct nodeID:PublicKey signature:opaque<64>',
  PublicKey: 'union PublicKeyType 0=ed25519:opaque[32]',
  PublicKeyType: 'enum 0',
  LedgerHeaderext: 'union i32 0=void 1=v1:LedgerHeaderExtensionV1',
  LedgerHeaderExtensionV1: 'struct flags:u32 ext:LedgerHeaderExtensionV1ext',
  LedgerHeaderExtensionV1ext: 'union i32 0=void',
  LedgerHeaderHistoryEntryext: 'union i32 0=void',
  TransactionSet: 'struct previousLedgerHash:opaque[32] txs:TransactionEnvelope<>',
  TransactionEnvelope:
    'union EnvelopeType 0=v0:TransactionV0Envelope 2=v1:TransactionV1Envelope 5=feeBump:FeeBumpTransactionEnvelope',
  EnvelopeType: 'enum 0 1 2 3 4 5 6 7 8 9 10',
  TransactionV0Envelope: 'struct tx:TransactionV0 signatures:DecoratedSignature<20>',
  TransactionV0:
    'struct sourceAccountEd25519:opaque[32] fee:u32 seqNum:i64 timeBounds:TimeBounds? memo:Memo operations:Operation<100> ext:TransactionV0ext',
  TimeBounds: 'struct minTime:u64 maxTime:u64',
  Memo: 'union MemoType 0=void 1=text:string<28> 2=id:u64 3=hash:opaque[32] 4=retHash:opaque[32]',
  MemoType: 'enum 0 1 2 3 4',
  Operation: 'struct sourceAccount:MuxedAccount? body:Operationbody',
  MuxedAccount: 'union CryptoKeyType 0=ed25519:opaque[32] 256=med25519:MuxedAccountmed25519',
  CryptoKeyType: 'enum 0 1 2 3 256',
  MuxedAccountmed25519: 'struct id:u64 ed25519:opaque[32]',
  Operationbody:
    'union OperationType 0=createAccountOp:CreateAccountOp 1=paymentOp:PaymentOp 2=pathPaymentStrictReceiveOp:PathPaymentStrictReceiveOp 3=manageSellOfferOp:ManageSellOfferOp 4=createPassiveSellOfferOp:CreatePassiveSellOfferOp 5=setOptionsOp:SetOptionsOp 6=changeTrustOp:ChangeTrustOp 7=allowTrustOp:AllowTrustOp 8=destination:MuxedAccount 9=void 10=manageDataOp:ManageDataOp 11=bumpSequenceOp:BumpSequenceOp 12=manageBuyOfferOp:ManageBuyOfferOp 13=pathPaymentStrictSendOp:PathPaymentStrictSendOp 14=createClaimableBalanceOp:CreateClaimableBalanceOp 15=claimClaimableBalanceOp:ClaimClaimableBalanceOp 16=beginSponsoringFutureReservesOp:BeginSponsoringFutureReservesOp 17=void 18=revokeSponsorshipOp:RevokeSponsorshipOp 19=clawbackOp:ClawbackOp 20=clawbackClaimableBalanceOp:ClawbackClaimableBalanceOp 21=setTrustLineFlagsOp:SetTrustLineFlagsOp 22=liquidityPoolDepositOp:LiquidityPoolDepositOp 23=liquidityPoolWithdrawOp:LiquidityPoolWithdrawOp 24=invokeHostFunctionOp:InvokeHostFunctionOp 25=extendFootprintTTLOp:ExtendFootprintTTLOp 26=restoreFootprintOp:RestoreFootprintOp',
  OperationType: 'enum 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26',
  CreateAccountOp: 'struct destination:PublicKey startingBalance:i64',
  PaymentOp: 'struct destination:MuxedAccount asset:Asset amount:i64',
  Asset: 'union AssetType 0=void 1=alphaNum4:AlphaNum4 2=alphaNum12:AlphaNum12',
  AssetType: 'enum 0 1 2 3',
  AlphaNum4: 'struct assetCode:opaque[4] issuer:PublicKey',
  AlphaNum12: 'struct assetCode:opaque[12] issuer:PublicKey',
  PathPaymentStrictReceiveOp:
    'struct sendAsset:Asset sendMax:i64 destination:MuxedAccount destAsset:Asset destAmount:i64 path:Asset<5>',
  ManageSellOfferOp: 'struct selling:Asset buying:Asset amount:i64 price:Price offerID:i64',
  Price: 'struct n:i32 d:i32',
  CreatePassiveSellOfferOp: 'struct selling:Asset buying:Asset amount:i64 price:Price',
  SetOptionsOp:
    'struct inflationDest:PublicKey? clearFlags:u32? setFlags:u32? masterWeight:u32? lowThreshold:u32? medThreshold:u32? highThreshold:u32? homeDomain:string<32>? signer:Signer?',
  Signer: 'struct key:SignerKey weight:u32',
  SignerKey:
    'union SignerKeyType 0=ed25519:opaque[32] 1=preAuthTx:opaque[32] 2=hashX:opaque[32] 3=ed25519SignedPayload:SignerKeyed25519SignedPayload',
  SignerKeyType: 'enum 0 1 2 3',
  SignerKeyed25519SignedPayload: 'struct ed25519:opaque[32] payload:opaque<64>',
  ChangeTrustOp: 'struct line:ChangeTrustAsset limit:i64',
  ChangeTrustAsset:
    'union AssetType 0=void 1=alphaNum4:AlphaNum4 2=alphaNum12:AlphaNum12 3=liquidityPool:LiquidityPoolParameters',
  LiquidityPoolParameters: 'union LiquidityPoolType 0=constantProduct:LiquidityPoolConstantProductParameters',
  LiquidityPoolType: 'enum 0',
  LiquidityPoolConstantProductParameters: 'struct assetA:Asset assetB:Asset fee:i32',
  AllowTrustOp: 'struct trustor:PublicKey asset:AssetCode authorize:u32',
  AssetCode: 'union AssetType 1=assetCode4:opaque[4] 2=assetCode12:opaque[12]',
  ManageDataOp: 'struct dataName:string<64> dataValue:opaque<64>?',
  BumpSequenceOp: 'struct bumpTo:i64',
  ManageBuyOfferOp: 'struct selling:Asset buying:Asset buyAmount:i64 price:Price offerID:i64',
  PathPaymentStrictSendOp:
    'struct sendAsset:Asset sendAmount:i64 destination:MuxedAccount destAsset:Asset destMin:i64 path:Asset<5>',
  CreateClaimableBalanceOp: 'struct asset:Asset amount:i64 claimants:Claimant<10>',
  Claimant: 'union ClaimantType 0=v0:Claimantv0',
  ClaimantType: 'enum 0',
  Claimantv0: 'struct destination:PublicKey predicate:ClaimPredicate',
  ClaimPredicate:
    'union ClaimPredicateType 0=void 1=andPredicates:ClaimPredicate<2> 2=orPredicates:ClaimPredicate<2> 3=notPredicate:ClaimPredicate? 4=absBefore:i64 5=relBefore:i64',
  ClaimPredicateType: 'enum 0 1 2 3 4 5',
  ClaimClaimableBalanceOp: 'struct balanceID:ClaimableBalanceID',
  ClaimableBalanceID: 'union ClaimableBalanceIDType 0=v0:opaque[32]',
  ClaimableBalanceIDType: 'enum 0',
  BeginSponsoringFutureReservesOp: 'struct sponsoredID:PublicKey',
  RevokeSponsorshipOp: 'union RevokeSponsorshipType 0=ledgerKey:@LedgerKey 1=signer:RevokeSponsorshipOpsigner',
  RevokeSponsorshipType: 'enum 0 1',
  RevokeSponsorshipOpsigner: 'struct accountID:PublicKey signerKey:SignerKey',
  ClawbackOp: 'struct asset:Asset from:MuxedAccount amount:i64',
  ClawbackClaimableBalanceOp: 'struct balanceID:ClaimableBalanceID',
  SetTrustLineFlagsOp: 'struct trustor:PublicKey asset:Asset clearFlags:u32 setFlags:u32',
  LiquidityPoolDepositOp:
    'struct liquidityPoolID:opaque[32] maxAmountA:i64 maxAmountB:i64 minPrice:Price maxPrice:Price',
  LiquidityPoolWithdrawOp: 'struct liquidityPoolID:opaque[32] amount:i64 minAmountA:i64 minAmountB:i64',
  InvokeHostFunctionOp: 'struct hostFunction:HostFunction auth:SorobanAuthorizationEntry<>',
  HostFunction:
    'union HostFunctionType 0=invokeContract:InvokeContractArgs 1=createContract:CreateContractArgs 2=wasm:opaque<> 3=createContractV2:CreateContractArgsV2',
  HostFunctionType: 'enum 0 1 2 3',
  InvokeContractArgs: 'struct contractAddress:@SCAddress functionName:string<32> args:@SCVal<>',
  CreateContractArgs: 'struct contractIDPreimage:ContractIDPreimage executable:ContractExecutable',
  ContractIDPreimage: 'union ContractIDPreimageType 0=fromAddress:ContractIDPreimagefromAddress 1=fromAsset:Asset',
  ContractIDPreimageType: 'enum 0 1',
  ContractIDPreimagefromAddress: 'struct address:@SCAddress salt:opaque[32]',
  ContractExecutable: 'union ContractExecutableType 0=wasm_hash:opaque[32] 1=void',
  ContractExecutableType: 'enum 0 1',
  CreateContractArgsV2:
    'struct contractIDPreimage:ContractIDPreimage executable:ContractExecutable constructorArgs:@SCVal<>',
  SorobanAuthorizationEntry: 'struct credentials:SorobanCredentials rootInvocation:SorobanAuthorizedInvocation',
  SorobanCredentials:
    'union SorobanCredentialsType 0=void 1=address:SorobanAddressCredentials 2=addressV2:SorobanAddressCredentials 3=addressWithDelegates:SorobanAddressCredentialsWithDelegates',
  SorobanCredentialsType: 'enum 0 1 2 3',
  SorobanAddressCredentials: 'struct address:@SCAddress nonce:i64 signatureExpirationLedger:u32 signature:@SCVal',
  SorobanAddressCredentialsWithDelegates:
    'struct addressCredentials:SorobanAddressCredentials delegates:SorobanDelegateSignature<>',
  SorobanDelegateSignature: 'struct address:@SCAddress signature:@SCVal nestedDelegates:SorobanDelegateSignature<>',
  SorobanAuthorizedInvocation: 'struct function:SorobanAuthorizedFunction subInvocations:SorobanAuthorizedInvocation<>',
  SorobanAuthorizedFunction:
    'union SorobanAuthorizedFunctionType 0=contractFn:InvokeContractArgs 1=createContractHostFn:CreateContractArgs 2=createContractV2HostFn:CreateContractArgsV2',
  SorobanAuthorizedFunctionType: 'enum 0 1 2',
  ExtendFootprintTTLOp: 'struct ext:ExtensionPoint extendTo:u32',
  ExtensionPoint: 'union i32 0=void',
  RestoreFootprintOp: 'struct ext:ExtensionPoint',
  TransactionV0ext: 'union i32 0=void',
  DecoratedSignature: 'struct hint:opaque[4] signature:opaque<64>',
  TransactionV1Envelope: 'struct tx:Transaction signatures:DecoratedSignature<20>',
  Transaction:
    'struct sourceAccount:MuxedAccount fee:u32 seqNum:i64 cond:Preconditions memo:Memo operations:Operation<100> ext:Transactionext',
  Preconditions: 'union PreconditionType 0=void 1=timeBounds:TimeBounds 2=v2:PreconditionsV2',
  PreconditionType: 'enum 0 1 2',
  PreconditionsV2:
    'struct timeBounds:TimeBounds? ledgerBounds:LedgerBounds? minSeqNum:i64? minSeqAge:u64 minSeqLedgerGap:u32 extraSigners:SignerKey<2>',
  LedgerBounds: 'struct minLedger:u32 maxLedger:u32',
  Transactionext: 'union i32 0=void 1=sorobanData:SorobanTransactionData',
  SorobanTransactionData: 'struct ext:SorobanTransactionDataext resources:SorobanResources resourceFee:i64',
  SorobanTransactionDataext: 'union i32 0=void 1=resourceExt:SorobanResourcesExtV0',
  SorobanResourcesExtV0: 'struct archivedSorobanEntries:u32<>',
  SorobanResources: 'struct footprint:LedgerFootprint instructions:u32 diskReadBytes:u32 writeBytes:u32',
  LedgerFootprint: 'struct readOnly:@LedgerKey<> readWrite:@LedgerKey<>',
  FeeBumpTransactionEnvelope: 'struct tx:FeeBumpTransaction signatures:DecoratedSignature<20>',
  FeeBumpTransaction:
    'struct feeSource:MuxedAccount fee:i64 innerTx:FeeBumpTransactioninnerTx ext:FeeBumpTransactionext',
  FeeBumpTransactioninnerTx: 'union EnvelopeType 2=v1:TransactionV1Envelope',
  FeeBumpTransactionext: 'union i32 0=void',
  TransactionResultMeta:
    'struct result:TransactionResultPair feeProcessing:LedgerEntryChanges txApplyProcessing:TransactionMeta',
  TransactionResultPair: 'struct transactionHash:opaque[32] result:TransactionResult',
  TransactionResult: 'struct feeCharged:i64 result:TransactionResultresult ext:TransactionResultext',
  TransactionResultresult:
    'union TransactionResultCode 1,-13=innerResultPair:InnerTransactionResultPair 0,-1=results:OperationResult<> -2,-3,-4,-5,-6,-7,-8,-9,-10,-11,-12,-14,-15,-16,-17,-18=void',
  TransactionResultCode: 'enum 1 0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11 -12 -13 -14 -15 -16 -17 -18',
  InnerTransactionResultPair: 'struct transactionHash:opaque[32] result:InnerTransactionResult',
  InnerTransactionResult: 'struct feeCharged:i64 result:InnerTransactionResultresult ext:InnerTransactionResultext',
  InnerTransactionResultresult:
    'union TransactionResultCode 0,-1=results:OperationResult<> -2,-3,-4,-5,-6,-7,-8,-9,-10,-11,-12,-14,-15,-16,-17,-18=void',
  OperationResult: 'union OperationResultCode 0=tr:OperationResulttr -1,-2,-3,-4,-5,-6=void',
  OperationResultCode: 'enum 0 -1 -2 -3 -4 -5 -6',
  OperationResulttr:
    'union OperationType 0=createAccountResult:CreateAccountResult 1=paymentResult:PaymentResult 2=pathPaymentStrictReceiveResult:PathPaymentStrictReceiveResult 3=manageSellOfferResult:ManageSellOfferResult 4=createPassiveSellOfferResult:ManageSellOfferResult 5=setOptionsResult:SetOptionsResult 6=changeTrustResult:ChangeTrustResult 7=allowTrustResult:AllowTrustResult 8=accountMergeResult:AccountMergeResult 9=inflationResult:InflationResult 10=manageDataResult:ManageDataResult 11=bumpSeqResult:BumpSequenceResult 12=manageBuyOfferResult:ManageBuyOfferResult 13=pathPaymentStrictSendResult:PathPaymentStrictSendResult 14=createClaimableBalanceResult:CreateClaimableBalanceResult 15=claimClaimableBalanceResult:ClaimClaimableBalanceResult 16=beginSponsoringFutureReservesResult:BeginSponsoringFutureReservesResult 17=endSponsoringFutureReservesResult:EndSponsoringFutureReservesResult 18=revokeSponsorshipResult:RevokeSponsorshipResult 19=clawbackResult:ClawbackResult 20=clawbackClaimableBalanceResult:ClawbackClaimableBalanceResult 21=setTrustLineFlagsResult:SetTrustLineFlagsResult 22=liquidityPoolDepositResult:LiquidityPoolDepositResult 23=liquidityPoolWithdrawResult:LiquidityPoolWithdrawResult 24=invokeHostFunctionResult:InvokeHostFunctionResult 25=extendFootprintTTLResult:ExtendFootprintTTLResult 26=restoreFootprintResult:RestoreFootprintResult',
  CreateAccountResult: 'union CreateAccountResultCode 0=void -1,-2,-3,-4=void',
  CreateAccountResultCode: 'enum 0 -1 -2 -3 -4',
  PaymentResult: 'union PaymentResultCode 0=void -1,-2,-3,-4,-5,-6,-7,-8,-9=void',
  PaymentResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8 -9',
  PathPaymentStrictReceiveResult:
    'union PathPaymentStrictReceiveResultCode 0=success:PathPaymentStrictReceiveResultsuccess -1,-2,-3,-4,-5,-6,-7,-8=void -9=noIssuer:Asset -10,-11,-12=void',
  PathPaymentStrictReceiveResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11 -12',
  PathPaymentStrictReceiveResultsuccess: 'struct offers:ClaimAtom<> last:SimplePaymentResult',
  ClaimAtom: 'union ClaimAtomType 0=v0:ClaimOfferAtomV0 1=orderBook:ClaimOfferAtom 2=liquidityPool:ClaimLiquidityAtom',
  ClaimAtomType: 'enum 0 1 2',
  ClaimOfferAtomV0:
    'struct sellerEd25519:opaque[32] offerID:i64 assetSold:Asset amountSold:i64 assetBought:Asset amountBought:i64',
  ClaimOfferAtom:
    'struct sellerID:PublicKey offerID:i64 assetSold:Asset amountSold:i64 assetBought:Asset amountBought:i64',
  ClaimLiquidityAtom:
    'struct liquidityPoolID:opaque[32] assetSold:Asset amountSold:i64 assetBought:Asset amountBought:i64',
  SimplePaymentResult: 'struct destination:PublicKey asset:Asset amount:i64',
  ManageSellOfferResult:
    'union ManageSellOfferResultCode 0=success:ManageOfferSuccessResult -1,-2,-3,-4,-5,-6,-7,-8,-9,-10,-11,-12=void',
  ManageSellOfferResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11 -12',
  ManageOfferSuccessResult: 'struct offersClaimed:ClaimAtom<> offer:ManageOfferSuccessResultoffer',
  ManageOfferSuccessResultoffer: 'union ManageOfferEffect 0,1=offer:OfferEntry 2=void',
  ManageOfferEffect: 'enum 0 1 2',
  OfferEntry:
    'struct sellerID:PublicKey offerID:i64 selling:Asset buying:Asset amount:i64 price:Price flags:u32 ext:OfferEntryext',
  OfferEntryext: 'union i32 0=void',
  SetOptionsResult: 'union SetOptionsResultCode 0=void -1,-2,-3,-4,-5,-6,-7,-8,-9,-10=void',
  SetOptionsResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -10',
  ChangeTrustResult: 'union ChangeTrustResultCode 0=void -1,-2,-3,-4,-5,-6,-7,-8=void',
  ChangeTrustResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8',
  AllowTrustResult: 'union AllowTrustResultCode 0=void -1,-2,-3,-4,-5,-6=void',
  AllowTrustResultCode: 'enum 0 -1 -2 -3 -4 -5 -6',
  AccountMergeResult: 'union AccountMergeResultCode 0=sourceAccountBalance:i64 -1,-2,-3,-4,-5,-6,-7=void',
  AccountMergeResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7',
  InflationResult: 'union InflationResultCode 0=payouts:InflationPayout<> -1=void',
  InflationResultCode: 'enum 0 -1',
  InflationPayout: 'struct destination:PublicKey amount:i64',
  ManageDataResult: 'union ManageDataResultCode 0=void -1,-2,-3,-4=void',
  ManageDataResultCode: 'enum 0 -1 -2 -3 -4',
  BumpSequenceResult: 'union BumpSequenceResultCode 0=void -1=void',
  BumpSequenceResultCode: 'enum 0 -1',
  ManageBuyOfferResult:
    'union ManageBuyOfferResultCode 0=success:ManageOfferSuccessResult -1,-2,-3,-4,-5,-6,-7,-8,-9,-10,-11,-12=void',
  ManageBuyOfferResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11 -12',
  PathPaymentStrictSendResult:
    'union PathPaymentStrictSendResultCode 0=success:PathPaymentStrictSendResultsuccess -1,-2,-3,-4,-5,-6,-7,-8=void -9=noIssuer:Asset -10,-11,-12=void',
  PathPaymentStrictSendResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -10 -11 -12',
  PathPaymentStrictSendResultsuccess: 'struct offers:ClaimAtom<> last:SimplePaymentResult',
  CreateClaimableBalanceResult:
    'union CreateClaimableBalanceResultCode 0=balanceID:ClaimableBalanceID -1,-2,-3,-4,-5=void',
  CreateClaimableBalanceResultCode: 'enum 0 -1 -2 -3 -4 -5',
  ClaimClaimableBalanceResult: 'union ClaimClaimableBalanceResultCode 0=void -1,-2,-3,-4,-5,-6=void',
  ClaimClaimableBalanceResultCode: 'enum 0 -1 -2 -3 -4 -5 -6',
  BeginSponsoringFutureReservesResult: 'union BeginSponsoringFutureReservesResultCode 0=void -1,-2,-3=void',
  BeginSponsoringFutureReservesResultCode: 'enum 0 -1 -2 -3',
  EndSponsoringFutureReservesResult: 'union EndSponsoringFutureReservesResultCode 0=void -1=void',
  EndSponsoringFutureReservesResultCode: 'enum 0 -1',
  RevokeSponsorshipResult: 'union RevokeSponsorshipResultCode 0=void -1,-2,-3,-4,-5=void',
  RevokeSponsorshipResultCode: 'enum 0 -1 -2 -3 -4 -5',
  ClawbackResult: 'union ClawbackResultCode 0=void -1,-2,-3,-4=void',
  ClawbackResultCode: 'enum 0 -1 -2 -3 -4',
  ClawbackClaimableBalanceResult: 'union ClawbackClaimableBalanceResultCode 0=void -1,-2,-3=void',
  ClawbackClaimableBalanceResultCode: 'enum 0 -1 -2 -3',
  SetTrustLineFlagsResult: 'union SetTrustLineFlagsResultCode 0=void -1,-2,-3,-4,-5=void',
  SetTrustLineFlagsResultCode: 'enum 0 -1 -2 -3 -4 -5',
  LiquidityPoolDepositResult: 'union LiquidityPoolDepositResultCode 0=void -1,-2,-3,-4,-5,-6,-7,-8=void',
  LiquidityPoolDepositResultCode: 'enum 0 -1 -2 -3 -4 -5 -6 -7 -8',
  LiquidityPoolWithdrawResult: 'union LiquidityPoolWithdrawResultCode 0=void -1,-2,-3,-4,-5,-6=void',
  LiquidityPoolWithdrawResultCode: 'enum 0 -1 -2 -3 -4 -5 -6',
  InvokeHostFunctionResult: 'union InvokeHostFunctionResultCode 0=success:opaque[32] -1,-2,-3,-4,-5=void',
  InvokeHostFunctionResultCode: 'enum 0 -1 -2 -3 -4 -5',
  ExtendFootprintTTLResult: 'union ExtendFootprintTTLResultCode 0=void -1,-2,-3=void',
  ExtendFootprintTTLResultCode: 'enum 0 -1 -2 -3',
  RestoreFootprintResult: 'union RestoreFootprintResultCode 0=void -1,-2,-3=void',
  RestoreFootprintResultCode: 'enum 0 -1 -2 -3',
  InnerTransactionResultext: 'union i32 0=void',
  TransactionResultext: 'union i32 0=void',
  LedgerEntryChanges: 'LedgerEntryChange<>',
  LedgerEntryChange:
    'union LedgerEntryChangeType 0=created:@LedgerEntry 1=updated:@LedgerEntry 2=removed:@LedgerKey 3=state:@LedgerEntry 4=restored:@LedgerEntry',
  LedgerEntryChangeType: 'enum 0 1 2 3 4',
  TransactionMeta:
    'union i32 0=operations:OperationMeta<> 1=v1:TransactionMetaV1 2=v2:TransactionMetaV2 3=v3:TransactionMetaV3 4=v4:TransactionMetaV4',
  OperationMeta: 'struct changes:LedgerEntryChanges',
  TransactionMetaV1: 'struct txChanges:LedgerEntryChanges operations:OperationMeta<>',
  TransactionMetaV2:
    'struct txChangesBefore:LedgerEntryChanges operations:OperationMeta<> txChangesAfter:LedgerEntryChanges',
  TransactionMetaV3:
    'struct ext:ExtensionPoint txChangesBefore:LedgerEntryChanges operations:OperationMeta<> txChangesAfter:LedgerEntryChanges sorobanMeta:SorobanTransactionMeta?',
  SorobanTransactionMeta:
    'struct ext:SorobanTransactionMetaExt events:ContractEvent<> returnValue:@SCVal diagnosticEvents:DiagnosticEvent<>',
  SorobanTransactionMetaExt: 'union i32 0=void 1=v1:SorobanTransactionMetaExtV1',
  SorobanTransactionMetaExtV1:
    'struct ext:ExtensionPoint totalNonRefundableResourceFeeCharged:i64 totalRefundableResourceFeeCharged:i64 rentFeeCharged:i64',
  ContractEvent: 'struct ext:ExtensionPoint contractID:opaque[32]? type:ContractEventType body:ContractEventbody',
  ContractEventType: 'enum 0 1 2',
  ContractEventbody: 'union i32 0=v0:ContractEventv0',
  ContractEventv0: 'struct topics:@SCVal<> data:@SCVal',
  DiagnosticEvent: 'struct inSuccessfulContractCall:bool event:ContractEvent',
  TransactionMetaV4:
    'struct ext:ExtensionPoint txChangesBefore:LedgerEntryChanges operations:OperationMetaV2<> txChangesAfter:LedgerEntryChanges sorobanMeta:SorobanTransactionMetaV2? events:TransactionEvent<> diagnosticEvents:DiagnosticEvent<>',
  OperationMetaV2: 'struct ext:ExtensionPoint changes:LedgerEntryChanges events:ContractEvent<>',
  SorobanTransactionMetaV2: 'struct ext:SorobanTransactionMetaExt returnValue:@SCVal?',
  TransactionEvent: 'struct stage:TransactionEventStage event:ContractEvent',
  TransactionEventStage: 'enum 0 1 2',
  UpgradeEntryMeta: 'struct upgrade:LedgerUpgrade changes:LedgerEntryChanges',
  LedgerUpgrade:
    'union LedgerUpgradeType 1=newLedgerVersion:u32 2=newBaseFee:u32 3=newMaxTxSetSize:u32 4=newBaseReserve:u32 5=newFlags:u32 6=newConfig:ConfigUpgradeSetKey 7=newMaxSorobanTxSetSize:u32',
  LedgerUpgradeType: 'enum 1 2 3 4 5 6 7',
  ConfigUpgradeSetKey: 'struct contractID:opaque[32] contentHash:opaque[32]',
  SCPHistoryEntry: 'union i32 0=v0:SCPHistoryEntryV0',
  SCPHistoryEntryV0: 'struct quorumSets:SCPQuorumSet<> ledgerMessages:LedgerSCPMessages',
  SCPQuorumSet: 'struct threshold:u32 validators:PublicKey<> innerSets:SCPQuorumSet<>',
  LedgerSCPMessages: 'struct ledgerSeq:u32 messages:SCPEnvelope<>',
  SCPEnvelope: 'struct statement:SCPStatement signature:opaque<64>',
  SCPStatement: 'struct nodeID:PublicKey slotIndex:u64 pledges:SCPStatementpledges',
  SCPStatementpledges:
    'union SCPStatementType 0=prepare:SCPStatementprepare 1=confirm:SCPStatementconfirm 2=externalize:SCPStatementexternalize 3=nominate:SCPNomination',
  SCPStatementType: 'enum 0 1 2 3',
  SCPStatementprepare:
    'struct quorumSetHash:opaque[32] ballot:SCPBallot prepared:SCPBallot? preparedPrime:SCPBallot? nC:u32 nH:u32',
  SCPBallot: 'struct counter:u32 value:opaque<>',
  SCPStatementconfirm: 'struct ballot:SCPBallot nPrepared:u32 nCommit:u32 nH:u32 quorumSetHash:opaque[32]',
  SCPStatementexternalize: 'struct commit:SCPBallot nH:u32 commitQuorumSetHash:opaque[32]',
  SCPNomination: 'struct quorumSetHash:opaque[32] votes:opaque<><> accepted:opaque<><>',
  LedgerCloseMetaV1:
    'struct ext:LedgerCloseMetaExt ledgerHeader:LedgerHeaderHistoryEntry txSet:GeneralizedTransactionSet txProcessing:TransactionResultMeta<> upgradesProcessing:UpgradeEntryMeta<> scpInfo:SCPHistoryEntry<> totalByteSizeOfLiveSorobanState:u64 evictedKeys:@LedgerKey<> unused:@LedgerEntry<>',
  LedgerCloseMetaExt: 'union i32 0=void 1=v1:LedgerCloseMetaExtV1',
  LedgerCloseMetaExtV1: 'struct ext:ExtensionPoint sorobanFeeWrite1KB:i64',
  GeneralizedTransactionSet: 'union i32 1=v1TxSet:TransactionSetV1',
  TransactionSetV1: 'struct previousLedgerHash:opaque[32] phases:TransactionPhase<>',
  TransactionPhase: 'union i32 0=v0Components:TxSetComponent<> 1=parallelTxsComponent:ParallelTxsComponent',
  TxSetComponent: 'union TxSetComponentType 0=txsMaybeDiscountedFee:TxSetComponenttxsMaybeDiscountedFee',
  TxSetComponentType: 'enum 0',
  TxSetComponenttxsMaybeDiscountedFee: 'struct baseFee:i64? txs:TransactionEnvelope<>',
  ParallelTxsComponent: 'struct baseFee:i64? executionStages:ParallelTxExecutionStage<>',
  ParallelTxExecutionStage: 'DependentTxCluster<>',
  DependentTxCluster: 'TransactionEnvelope<>',
  LedgerCloseMetaV2:
    'struct ext:LedgerCloseMetaExt ledgerHeader:LedgerHeaderHistoryEntry txSet:GeneralizedTransactionSet txProcessing:TransactionResultMetaV1<> upgradesProcessing:UpgradeEntryMeta<> scpInfo:SCPHistoryEntry<> totalByteSizeOfLiveSorobanState:u64 evictedKeys:@LedgerKey<>',
  TransactionResultMetaV1:
    'struct ext:ExtensionPoint result:TransactionResultPair feeProcessing:LedgerEntryChanges txApplyProcessing:TransactionMeta postTxApplyFeeProcessing:LedgerEntryChanges',
};
